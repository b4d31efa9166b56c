import fc from 'fast-check';
import { openAiErrorSchema } from '../../functions/shared/providers/openai/openai-api.js';
import { openAiStreamError } from '../../functions/shared/providers/openai/openai-provider.js';

/**
 * An OpenAI-style stream event is read as an error when the error schema finds an `error` member in
 * it. Most events have none and are told apart without running the schema: over any JSON value, with
 * and without an `error` member of any kind, the answer must be the schema's.
 */
const bySchema = (payload: unknown): string | undefined => {
  const parsed = openAiErrorSchema().safeParse(payload);
  return parsed.success && parsed.data.error ? (parsed.data.error.message ?? 'unknown error') : undefined;
};

const errorValue = fc.oneof(
  fc.constantFrom(null, undefined, 0, '', false, [], {}),
  fc.jsonValue(),
  fc.record(
    { message: fc.oneof(fc.string(), fc.constant(null), fc.integer()), code: fc.oneof(fc.string(), fc.integer()) },
    { requiredKeys: [] },
  ),
);
const payload = fc.oneof(
  fc.jsonValue(),
  fc.tuple(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 4 }), errorValue).map(([object, error]) => ({
    ...object,
    error,
  })),
);

describe('openAiStreamError', () => {
  test('reads an event as the error schema reads it', () => {
    fc.assert(
      fc.property(payload, (event) => {
        const error = openAiStreamError(event);
        const expected = bySchema(event);
        if (expected === undefined) expect(error).toBeUndefined();
        else expect(error?.message).toBe(`The upstream provider failed mid-stream: ${expected}`);
      }),
      { numRuns: 500 },
    );
  });

  test('an error event becomes a 502 that is not retried', () => {
    expect(openAiStreamError({ error: { message: 'overloaded', type: 'server_error' } })).toMatchObject({
      status: 502,
      code: 'upstream_error',
      retryable: false,
    });
  });
});
