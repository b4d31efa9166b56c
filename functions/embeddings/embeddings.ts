import { startMeter } from '../shared/accounting/request-meter.js';
import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { toGatewayError } from '../shared/http/error-response.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { embeddingsProviders } from '../shared/providers/embeddings-providers.js';
import { orderChannels, upstreamModelName } from '../shared/relay/order-channels.js';
import { noChannel, UpstreamError } from '../shared/relay/upstream-errors.js';
import { channelTimeouts } from '../shared/relay/upstream-http.js';
import { withFailover } from '../shared/relay/with-failover.js';
import { embeddingsRequestSchema } from '../shared/schemas/embeddings-request.js';

/** POST /v1/embeddings: vectors from the first channel that answers, under the public model id, metered. */
export const embeddings = gatewayHandler({ auth: 'user', body: embeddingsRequestSchema }, async (request) => {
  const { body, principal } = request;
  const model = await resolveUsableModel(principal, body.model);
  const channels = orderChannels(model, 'embeddings', (channel) => embeddingsProviders[channel.type] !== undefined);
  const meter = startMeter(request, model, 'embeddings', false);
  try {
    if (channels.length === 0) throw noChannel(model.id, '/v1/embeddings');
    const { result, channel, attempts } = await withFailover(channels, (candidate) =>
      embeddingsProviders[candidate.type]!.embed({
        request: body,
        upstreamModel: upstreamModelName(candidate, model),
        channel: candidate,
        signal: request.signal,
        timeouts: channelTimeouts(candidate),
      }),
    );
    meter.served(channel, attempts);
    const promptTokens = result.usage?.prompt_tokens ?? 0;
    meter.usage({ promptTokens, completionTokens: 0, totalTokens: result.usage?.total_tokens ?? promptTokens, cachedTokens: 0, reasoningTokens: 0, source: 'upstream' });
    result.model = model.id;
    request.defer(meter.record('success', 200));
    return json(200, result);
  } catch (error) {
    request.defer(meter.record(error instanceof UpstreamError ? 'upstream_error' : 'error', toGatewayError(error).status));
    throw error;
  }
});
