import { admit } from '../shared/accounting/admission.js';
import { estimateTokens } from '../shared/accounting/estimate-tokens.js';
import { startMeter } from '../shared/accounting/request-meter.js';
import { withHeaders } from '../shared/accounting/with-headers.js';
import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { adapterOf } from '../shared/providers/provider-registry.js';
import { orderChannels } from '../shared/routing/order-channels.js';
import { noChannel } from '../shared/upstream/upstream-errors.js';
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
    const meter = startMeter(request, model, 'embeddings', false);
    try {
      if (channels.length === 0) throw noChannel(model.id, '/v1/embeddings');
      const estimatedPromptTokens = embeddingsInputs(body.input).reduce(
        (sum, input) => sum + (typeof input === 'string' ? estimateTokens(input) : input.length),
        0,
      );
      const admission = await admit(principal, {
        model,
        promptTokens: estimatedPromptTokens,
        maxOutputTokens: 0,
        request: body,
      });
      meter.admitted(admission);
      const { result } = await withFailover(
        channels,
        (candidate) =>
          adapterOf(candidate.type, 'embeddings').embed(channelCall(body, candidate, model, request.signal)),
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
      request.defer(meter.record('success', 200));
      return withHeaders(json(200, result), admission.headers);
    } catch (error) {
      request.defer(meter.failed(error));
      throw error;
    }
  },
);
