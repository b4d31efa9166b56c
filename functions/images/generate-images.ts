import { estimateTokens } from '../shared/accounting/estimate-tokens.js';
import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import { json } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { meteredRequest } from '../shared/middleware/metered-request.js';
import { imagesAdapterOf } from '../shared/providers/images-adapters.js';
import { orderChannels } from '../shared/routing/order-channels.js';
import { channelCall } from '../shared/routing/channel-call.js';
import { withFailover } from '../shared/routing/with-failover.js';
import { estimatedUsage, type TokenUsage } from '../shared/accounting/token-usage.js';
import { imagesRequestSchema, type ImagesResult } from '../shared/schemas/images-request.js';

/**
 * Image usage: the upstream's token counts when it reports them (gpt-image models); otherwise the
 * prompt's estimated tokens in, and the number of images as `completionTokens`.
 */
const imageUsage = (result: ImagesResult, prompt: string): TokenUsage => {
  const usage = result.usage;
  if (
    usage &&
    typeof usage.input_tokens === 'number' &&
    typeof usage.output_tokens === 'number' &&
    usage.output_tokens > 0
  ) {
    return {
      promptTokens: usage.input_tokens,
      completionTokens: usage.output_tokens,
      totalTokens: usage.total_tokens ?? usage.input_tokens + usage.output_tokens,
      cachedTokens: 0,
      reasoningTokens: 0,
      source: 'upstream',
    };
  }
  return estimatedUsage(estimateTokens(prompt), result.data.length);
};

/** POST /v1/images/generations: images from the first channel that answers, metered. */
export const generateImages = gatewayHandler(
  { auth: 'user', body: imagesRequestSchema, streaming: true },
  async (request) => {
    const { body, principal } = request;
    const model = await resolveUsableModel(principal, body.model);
    const channels = orderChannels(model, 'images');
    const plan = {
      model,
      endpoint: 'images',
      stream: false,
      channels,
      path: '/v1/images/generations',
      // Without upstream token counts, usage counts one completion token an image (`imageUsage`).
      admission: { promptTokens: estimateTokens(body.prompt), maxOutputTokens: body.n ?? 1, request: body },
    } as const;
    return meteredRequest(request, plan, async (meter) => {
      const { result } = await withFailover(
        channels,
        (candidate) => imagesAdapterOf(candidate.type).generate(channelCall(body, candidate, model, request.signal)),
        { signal: request.signal, meter },
      );
      meter.usage(imageUsage(result, body.prompt));
      return json(200, result);
    });
  },
);
