import fc from 'fast-check';
import { usageCost } from '../../functions/shared/accounting/pricing.js';
import { MEDIA_TOKEN_CEILING, promptTokenBound } from '../../functions/shared/accounting/prompt-token-bound.js';
import {
  DEFAULT_OUTPUT_TOKEN_CAP,
  quotaReservationTokens,
} from '../../functions/shared/accounting/quota-reservation.js';
import type { ModelPricing } from '../../functions/shared/store/models.js';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * Any text a client may send: every Unicode code point (CJK, emoji, lone surrogates, control
 * characters), random base64, and runs of one repeated character.
 */
const promptText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 400 }),
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.base64String({ maxLength: 800 }),
  fc
    .tuple(fc.string({ unit: 'binary', minLength: 1, maxLength: 2 }), fc.integer({ min: 1, max: 300 }))
    .map(([text, times]) => text.repeat(times)),
);

/**
 * The most prompt tokens an upstream can report for these messages: one token per UTF-8 byte (no
 * tokenizer does worse), plus OpenAI's documented chat framing (3 tokens a message, 3 to prime the
 * answer) with room to spare.
 */
const maximumPromptTokens = (texts: readonly string[]) => texts.reduce((sum, text) => sum + bytes(text) + 4, 0) + 3;

const pricing = fc.record({
  inputPerMTok: fc.double({ min: 0, max: 100, noNaN: true }),
  outputPerMTok: fc.double({ min: 0, max: 100, noNaN: true }),
  cachedInputPerMTok: fc.option(fc.double({ min: 0, max: 200, noNaN: true }), { nil: undefined }),
}) as fc.Arbitrary<ModelPricing>;

const reservedCost = (modelPricing: ModelPricing, tokens: { promptTokens: number; completionTokens: number }) =>
  usageCost(modelPricing, {
    ...tokens,
    cachedTokens: (modelPricing.cachedInputPerMTok ?? 0) > modelPricing.inputPerMTok ? tokens.promptTokens : 0,
  });

describe('the quota reservation', () => {
  test('covers the most any upstream can charge for a chat request, whatever its text and however its prompt is cached', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: promptText }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.option(fc.integer({ min: 0, max: 100_000 }), { nil: undefined }),
        pricing,
        fc.integer({ min: 0, max: 100 }),
        (messages, maxTokens, modelPricing, cachedShare) => {
          const body = { model: 'm', messages, ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }) };
          const reserved = quotaReservationTokens({
            promptTokens: 1,
            maxOutputTokens: maxTokens,
            request: body,
          });
          const promptTokens = maximumPromptTokens(messages.map((message) => message.content));
          const worst = {
            promptTokens,
            completionTokens: maxTokens ?? DEFAULT_OUTPUT_TOKEN_CAP,
            cachedTokens: Math.floor((promptTokens * cachedShare) / 100),
          };
          expect(reserved.promptTokens).toBeGreaterThanOrEqual(promptTokens);
          expect(reservedCost(modelPricing, reserved)).toBeGreaterThanOrEqual(usageCost(modelPricing, worst));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('bounds the bytes of every string and field name in any JSON body, however deeply nested', () => {
    const stringBytes = (value: unknown): number => {
      if (typeof value === 'string') return bytes(value);
      if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + stringBytes(item), 0);
      if (value && typeof value === 'object') {
        return Object.entries(value).reduce((sum, [key, item]) => sum + bytes(key) + stringBytes(item), 0);
      }
      return 0;
    };
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (body) => {
        expect(promptTokenBound(body)).toBeGreaterThanOrEqual(stringBytes(body));
      }),
      { numRuns: 300 },
    );
    let deep: unknown = 'x'.repeat(100);
    for (let level = 0; level < 20_000; level += 1) deep = [deep];
    expect(promptTokenBound(deep)).toBeGreaterThanOrEqual(100);
  });

  test.each([
    [
      'a chat part with a data URL',
      {
        messages: [
          {
            role: 'user',
            content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(40)}` } }],
          },
        ],
      },
    ],
    [
      'a chat part with a link',
      {
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] }],
      },
    ],
    [
      'an Anthropic image block',
      {
        messages: [
          {
            role: 'user',
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }],
          },
        ],
      },
    ],
    [
      'a Gemini inline part',
      { contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }] },
    ],
    [
      'a Gemini file part',
      { contents: [{ role: 'user', parts: [{ fileData: { mimeType: 'image/png', fileUri: 'gs://b/a.png' } }] }] },
    ],
    [
      'a Responses input image',
      { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png' }] }] },
    ],
  ])('counts %s at the most a provider charges for one image, once', (_, body) => {
    const bound = promptTokenBound(body);
    expect(bound).toBeGreaterThanOrEqual(MEDIA_TOKEN_CEILING);
    expect(bound).toBeLessThan(2 * MEDIA_TOKEN_CEILING);
  });

  test('counts an inline document or audio payload by its bytes besides the media ceiling', () => {
    const data = 'Q'.repeat(50_000);
    const body = {
      messages: [
        {
          role: 'user',
          content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } }],
        },
      ],
    };
    expect(promptTokenBound(body)).toBeGreaterThanOrEqual(MEDIA_TOKEN_CEILING + data.length);
  });

  test('adds the tool-use preamble when tools are declared', () => {
    const plain = { messages: [{ role: 'user', content: 'hi' }] };
    const withTools = { ...plain, tools: [{ name: 't', input_schema: { type: 'object' } }] };
    expect(promptTokenBound(withTools) - promptTokenBound(plain)).toBeGreaterThanOrEqual(1000);
  });

  test('reserves the output allowance for each of the answers asked for', () => {
    const body = { model: 'm', n: 3, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
    expect(
      quotaReservationTokens({ promptTokens: 1, maxOutputTokens: 100, request: body, choices: 3 }).completionTokens,
    ).toBe(300);
  });

  test('without the request body, reserves four tokens for each estimated one', () => {
    const text = '漢字'.repeat(100);
    const estimate = Math.ceil(bytes(text) / 4);
    expect(quotaReservationTokens({ promptTokens: estimate, maxOutputTokens: 5 }).promptTokens).toBeGreaterThanOrEqual(
      bytes(text),
    );
  });
});
