import * as z from '../../schemas/zod.js';
import { lazySchema } from '../../schemas/lazy-schema.js';

/**
 * The parts of OpenAI's wire format we read; everything else is carried through untouched. The
 * answer's schemas below only check: the answer goes on as the upstream sent it, so they strip
 * (`z.object`), and a member they do not name is skipped instead of copied into a result nobody
 * reads (a completion's `object`, `logprobs`, `system_fingerprint`, a message's `content`).
 */
export const openAiErrorSchema = lazySchema(() =>
  z.looseObject({
    error: z.nullish(
      z.looseObject({
        message: z.nullish(z.string()),
        type: z.nullish(z.string()),
        param: z.nullish(z.string()),
        code: z.nullish(z.union([z.string(), z.number()])),
      }),
    ),
  }),
);

/**
 * The token counts an answer reports, each a number where present: the gateway adds, prices and
 * translates them, and a count of another type would fail that arithmetic (an object without a
 * callable `toString` throws) as the gateway's own error instead of the upstream's.
 */
export const openAiUsageSchema = lazySchema(() => {
  const count = z.nullish(z.number());
  return z.object({
    prompt_tokens: count,
    completion_tokens: count,
    total_tokens: count,
    prompt_tokens_details: z.nullish(z.object({ cached_tokens: count, cache_write_tokens: count })),
    completion_tokens_details: z.nullish(z.object({ reasoning_tokens: count })),
  });
});

/** The members of a completion and of a chunk that name them, as translations read them. */
const answerIdentity = () => ({ model: z.nullish(z.string()), created: z.nullish(z.number()) });

/**
 * The members of a completion's message and of a chunk's delta that translations read besides text.
 * `content` is left unchecked: some servers answer with a list of parts (reasoning models), which a
 * chat client gets relayed, and translations take it only when it is text.
 */
const answerParts = () => ({ reasoning_content: z.nullish(z.string()), refusal: z.nullish(z.string()) });

/**
 * A chat completion, held to the types of the members the gateway reads when it answers another
 * protocol's client with it (reasoning, tool calls, finish reason, usage): the translations rely on
 * them, and a member of another type is the upstream's broken answer, not the gateway's error.
 */
export const openAiCompletionSchema = lazySchema(() =>
  z.object({
    id: z.string(),
    ...answerIdentity(),
    choices: z.array(
      z.object({
        index: z.number(),
        message: z.object({
          ...answerParts(),
          tool_calls: z.nullish(
            z.array(
              z.object({
                id: z.nullish(z.string()),
                function: z.object({ name: z.string(), arguments: z.string() }),
              }),
            ),
          ),
        }),
        finish_reason: z.nullish(z.string()),
      }),
    ),
    usage: z.nullish(openAiUsageSchema()),
  }),
);

/** A stream chunk, held to the types of the members translations read, as the completion is. */
export const openAiChunkSchema = lazySchema(() =>
  z.object({
    id: z.nullish(z.string()),
    ...answerIdentity(),
    choices: z.nullish(
      z.array(
        z.object({
          index: z.nullish(z.number()),
          delta: z.nullish(
            z.object({
              ...answerParts(),
              tool_calls: z.nullish(
                z.array(
                  z.object({
                    index: z.nullish(z.number()),
                    id: z.nullish(z.string()),
                    function: z.nullish(z.object({ name: z.nullish(z.string()), arguments: z.nullish(z.string()) })),
                  }),
                ),
              ),
            }),
          ),
          finish_reason: z.nullish(z.string()),
        }),
      ),
    ),
    usage: z.nullish(openAiUsageSchema()),
  }),
);
