import fc from 'fast-check';
import {
  contentText,
  estimateConcatenatedTokens,
  estimateLinesTokens,
  estimateMessageTokens,
  estimateTokens,
} from '../../functions/shared/accounting/estimate-tokens.js';

/**
 * Prompt estimates are counted part by part rather than on the joined text: for every input they
 * must equal what `estimateTokens` makes of the text joined, any Unicode (lone surrogates included)
 * and any content shape a client may send.
 */
/** Any text, lone surrogates included (fast-check's 'binary' unit leaves them out). */
const anyText = fc.string({
  unit: fc.oneof(
    fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    fc.integer({ min: 0xd800, max: 0xdfff }).map((code) => String.fromCharCode(code)),
  ),
  maxLength: 40,
});
const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text: anyText }),
  fc.record({ type: fc.constant('image_url'), image_url: fc.record({ url: anyText }) }),
  fc.record({ text: fc.oneof(fc.integer(), fc.constant(null), anyText) }),
  fc.constant(null),
);
const content = fc.oneof(
  anyText,
  fc.array(part, { maxLength: 5 }),
  fc.constant(null),
  fc.constant(undefined),
  fc.integer(),
);
const messages = fc.array(fc.record({ role: fc.constant('user'), content }, { requiredKeys: ['role'] }), {
  maxLength: 6,
});

it('estimates chat messages as their content texts joined a line each', () => {
  fc.assert(
    fc.property(messages, (list) => {
      expect(estimateMessageTokens(list)).toBe(
        estimateTokens(list.map((message) => contentText(message.content)).join('\n')),
      );
    }),
    { numRuns: 2000 },
  );
});

it('estimates lines as the text they make joined', () => {
  fc.assert(
    fc.property(fc.array(anyText, { maxLength: 8 }), (texts) => {
      expect(estimateLinesTokens(texts)).toBe(estimateTokens(texts.join('\n')));
    }),
    { numRuns: 2000 },
  );
});

it("estimates a Responses request's instructions and input's JSON as the text they make together", () => {
  fc.assert(
    fc.property(anyText, fc.jsonValue(), (instructions, input) => {
      const json = JSON.stringify(input) ?? '';
      expect(estimateConcatenatedTokens(instructions, json)).toBe(estimateTokens(`${instructions}${json}`));
    }),
    { numRuns: 2000 },
  );
});

it('counts no tokens for nothing, and at least one for any text', () => {
  expect(estimateMessageTokens([])).toBe(0);
  expect(estimateMessageTokens([{ content: '' }])).toBe(0);
  expect(estimateMessageTokens([{ content: '' }, { content: '' }])).toBe(1);
  expect(estimateLinesTokens(['é'])).toBe(1);
  expect(estimateMessageTokens([{ content: 'x'.repeat(400) }])).toBe(100);
});
