import * as z from '../../schemas/zod.js';
import { lazySchema } from '../../schemas/lazy-schema.js';
import { estimateTokens } from '../../accounting/estimate-tokens.js';
import { invalidValue } from '../../errors.js';
import { embeddingsInputs, type EmbeddingsResult } from '../../schemas/embeddings-request.js';
import { sendUpstream } from '../../upstream/upstream-http.js';
import { upstreamBrokenResponse } from '../../upstream/upstream-errors.js';
import type { EmbeddingsCall, EmbeddingsProvider } from '../embeddings-provider.js';
import { float32Base64 } from '../float32-base64.js';
import { isSuccess, readJsonBody } from '../upstream-json.js';
import { GEMINI_BASE_URL, geminiHeaders, geminiStatusError } from './gemini-http.js';

/** The parts of a `BatchEmbedContentsResponse` we read: one `values` list per request, in order. */
const batchEmbedResponseSchema = lazySchema(() =>
  z.looseObject({
    embeddings: z.array(z.looseObject({ values: z.array(z.number()) })),
    usageMetadata: z.nullish(z.looseObject({ promptTokenCount: z.nullish(z.number()) })),
  }),
);

const batchUrl = (call: EmbeddingsCall) =>
  `${(call.channel.baseUrl ?? GEMINI_BASE_URL).replace(/\/+$/, '')}/v1beta/models/${encodeURIComponent(call.upstreamModel)}:batchEmbedContents`;

/** Gemini embeds text only; token-id inputs (an OpenAI tokenizer's ids) mean nothing to it. */
const textInputs = (call: EmbeddingsCall): string[] =>
  embeddingsInputs(call.request.input).map((input) => {
    if (typeof input !== 'string')
      throw invalidValue(`The model '${call.request.model}' takes text inputs only, not token ids.`, 'input');
    return input;
  });

/**
 * `POST /v1beta/models/{model}:batchEmbedContents`: one EmbedContentRequest per input, answered as
 * OpenAI's embeddings list. Gemini reports no usage for embeddings unless it sends `usageMetadata`;
 * without it the prompt tokens are the gateway's own estimate.
 */
export const geminiEmbeddings: EmbeddingsProvider = {
  async embed(call) {
    const inputs = textInputs(call);
    const dimensions = call.request.dimensions;
    const response = await sendUpstream({
      url: batchUrl(call),
      headers: geminiHeaders(call.channel),
      body: JSON.stringify({
        requests: inputs.map((text) => ({
          model: `models/${call.upstreamModel}`,
          content: { parts: [{ text }] },
          ...(dimensions === undefined ? {} : { outputDimensionality: dimensions }),
        })),
      }),
      signal: call.signal,
      timeouts: call.timeouts,
    });
    if (!isSuccess(response)) throw await geminiStatusError(response, call.timeouts.idleMs);
    const parsed = batchEmbedResponseSchema().safeParse(await readJsonBody(response, call.timeouts.idleMs));
    if (!parsed.success || parsed.data.embeddings.length !== inputs.length)
      throw upstreamBrokenResponse('the body was not a BatchEmbedContentsResponse for every input');
    const promptTokens =
      parsed.data.usageMetadata?.promptTokenCount ?? inputs.reduce((sum, text) => sum + estimateTokens(text), 0);
    const base64 = call.request.encoding_format === 'base64';
    const result: EmbeddingsResult = {
      object: 'list',
      data: parsed.data.embeddings.map(({ values }, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? float32Base64(values) : values,
      })),
      model: call.upstreamModel,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    };
    return result;
  },
};
