import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import * as z from '../../schemas/zod.js';
import { lazySchema } from '../../schemas/lazy-schema.js';
import { upstreamBrokenResponse } from '../../upstream/upstream-errors.js';
import type { BedrockConverseOutput } from './bedrock-response.js';

/**
 * The members of Bedrock's Converse answers and stream events that the gateway reads, with their
 * types. The SDK hands its output over as it parsed it, types unchecked (a name may be a list, a count
 * a bigint), so the gateway checks what it reads, as it does for every other upstream: an answer
 * that does not match is the upstream's broken answer, not the gateway's own error. A tool's input
 * and the usage are left unchecked: the input is any JSON (`toolInputText` turns bigints into numbers)
 * and usage counts are read with `tokenCount`, which takes any value.
 */

const text = () => z.nullish(z.string());
/** Redacted reasoning: bytes, as the SDK decodes the blob, or its base64 text. */
const redacted = () => z.nullish(z.union([z.string(), z.instanceof(Uint8Array)]));

const contentBlockSchema = lazySchema(() =>
  z.looseObject({
    text: text(),
    reasoningContent: z.nullish(
      z.looseObject({
        reasoningText: z.nullish(z.looseObject({ text: text(), signature: text() })),
        redactedContent: redacted(),
      }),
    ),
    toolUse: z.nullish(z.looseObject({ toolUseId: text(), name: text() })),
  }),
);

const converseOutputSchema = lazySchema(() =>
  z.looseObject({
    output: z.nullish(
      z.looseObject({
        message: z.nullish(z.looseObject({ content: z.nullish(z.array(contentBlockSchema())) })),
      }),
    ),
    stopReason: text(),
  }),
);

const streamEventSchema = lazySchema(() =>
  z.looseObject({
    contentBlockStart: z.nullish(
      z.looseObject({
        contentBlockIndex: z.nullish(z.number()),
        start: z.nullish(z.looseObject({ toolUse: z.nullish(z.looseObject({ toolUseId: text(), name: text() })) })),
      }),
    ),
    contentBlockDelta: z.nullish(
      z.looseObject({
        contentBlockIndex: z.nullish(z.number()),
        delta: z.nullish(
          z.looseObject({
            text: text(),
            toolUse: z.nullish(z.looseObject({ input: text() })),
            reasoningContent: z.nullish(
              z.looseObject({ text: text(), signature: text(), redactedContent: redacted() }),
            ),
          }),
        ),
      }),
    ),
    messageStop: z.nullish(z.looseObject({ stopReason: text() })),
  }),
);

/** A Converse answer, once its members are of the types the gateway reads. */
export const checkedConverseOutput = <Output extends BedrockConverseOutput>(output: Output): Output => {
  if (!converseOutputSchema().safeParse(output).success)
    throw upstreamBrokenResponse('the body was not a Converse answer');
  return output;
};

/** A ConverseStream event, once its members are of the types the gateway reads. */
export const checkedStreamEvent = (event: ConverseStreamOutput): ConverseStreamOutput => {
  if (!streamEventSchema().safeParse(event).success)
    throw upstreamBrokenResponse('a stream event was not a Converse event');
  return event;
};
