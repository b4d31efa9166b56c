import fc from 'fast-check';
import { tokenCount, usableUsage, type TokenUsage } from '../../functions/shared/accounting/token-usage.js';
import { toTokenUsage, type ChatUsage } from '../../functions/shared/protocols/openai-chat/chat-completion-result.js';
import { responsesTokenUsage } from '../../functions/chat/responses-usage.js';

/** Anything a count member of an upstream's JSON can hold once parsed, `1e999` (Infinity) included. */
const anyCount = fc.oneof(
  fc.nat(),
  fc.double(),
  fc.constantFrom<unknown>(
    Infinity,
    -Infinity,
    -1,
    2 ** 64,
    '12',
    null,
    true,
    [],
    {},
    { toString: { polluted: true } },
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

const isStorableCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;

describe('usage as the accounting keeps it', () => {
  test('every count is a whole, non-negative, exactly held number, whatever was reported', () => {
    fc.assert(
      fc.property(
        fc.array(anyCount, { minLength: 6, maxLength: 6 }),
        ([prompt, completion, total, cached, written, reasoning]) => {
          const reported = {
            promptTokens: prompt,
            completionTokens: completion,
            totalTokens: total,
            cachedTokens: cached,
            cacheWriteTokens: written,
            reasoningTokens: reasoning,
            source: 'upstream',
          } as unknown as TokenUsage;
          const usable = usableUsage(reported);
          for (const [name, value] of Object.entries(usable))
            if (name !== 'source') expect(isStorableCount(value)).toBe(true);
          expect(usable.source).toBe('upstream');
        },
      ),
    );
  });

  test('counts that are already whole and non-negative are kept as they are', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(), { minLength: 5, maxLength: 5 }),
        ([prompt, completion, total, cached, reasoning]) => {
          const reported: TokenUsage = {
            promptTokens: prompt!,
            completionTokens: completion!,
            totalTokens: total!,
            cachedTokens: cached!,
            reasoningTokens: reasoning!,
            source: 'estimate',
          };
          expect(usableUsage(reported)).toEqual(reported);
        },
      ),
    );
  });

  test.each([
    [-5, 0],
    [2.6, 3],
    [Infinity, Number.MAX_SAFE_INTEGER],
    ['12', 0],
    [{ toString: { polluted: true } }, 0],
  ])('a reported %p counts %p', (reported, kept) => expect(tokenCount(reported)).toBe(kept));

  test("reading an upstream's usage never fails on counts of another type", () => {
    fc.assert(
      fc.property(anyCount, anyCount, (first, second) => {
        expect(() =>
          toTokenUsage({ prompt_tokens: first, completion_tokens: second } as unknown as ChatUsage),
        ).not.toThrow();
        expect(() => responsesTokenUsage({ input_tokens: first, output_tokens: second } as never)).not.toThrow();
      }),
    );
  });
});
