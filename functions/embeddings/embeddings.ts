import { estimateTokens } from '../shared/accounting/estimate-tokens.js';
import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { meteredRequest } from '../shared/middleware/metered-request.js';
import { embeddingsAdapterOf } from '../shared/providers/embeddings-adapters.js';
import { orderChannels } from '../shared/routing/order-channels.js';
import { channelCall } from '../shared/routing/channel-call.js';
import { withFailover } from '../shared/routing/with-failover.js';
import { embeddingsInputs, embeddingsRequestSchema } from '../shared/schemas/embeddings-request.js';

/** POST /v1/embeddings: vectors from the first channel that answers, under the public model id, metered. */
export const embeddings = gatewayHandler(
  { auth: 'user', body: embeddingsRequestSchema, streaming: true },
  async (request) => {
    const { body, principal } = request;
    const model = await resolveUsableModel(principal, body.model);
    const channels = orderChannels(model, 'embeddings');
    const estimatedPromptTokens = embeddingsInputs(body.input).reduce(
      (sum, input) => sum + (typeof input === 'string' ? estimateTokens(input) : input.length),
      0,
    );
    const plan = {
      model,
      endpoint: 'embeddings',
      stream: false,
      channels,
      path: '/v1/embeddings',
      admission: { promptTokens: estimatedPromptTokens, maxOutputTokens: 0, request: body },
    } as const;
    return meteredRequest(request, plan, async (meter) => {
      const { result } = await withFailover(
        channels,
        (candidate) => embeddingsAdapterOf(candidate.type).embed(channelCall(body, candidate, model, request.signal)),
        { signal: request.signal, meter },
      );
      const promptTokens = result.usage?.prompt_tokens ?? 0;
      meter.usage({
        promptTokens,
        completionTokens: 0,
        totalTokens: result.usage?.total_tokens ?? promptTokens,
        cachedTokens: 0,
        reasoningTokens: 0,
        source: 'upstream',
      });
      result.model = model.id;
      return json(200, result);
    });
  },
);
