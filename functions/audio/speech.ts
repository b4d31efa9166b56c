import { Readable } from 'node:stream';
import { usageStatusFor, type RequestMeter } from '../shared/middleware/request-meter.js';
import type { UsageStatus } from '../shared/accounting/usage-records.js';
import { resolveUsableModel } from '../shared/catalog/resolve-model.js';
import type { GatewayResponse } from '../shared/http/response.js';
import { gatewayHandler } from '../shared/middleware/gateway-handler.js';
import { meteredRequest } from '../shared/middleware/metered-request.js';
import { speechAdapterOf } from '../shared/providers/speech-adapters.js';
import { orderChannels } from '../shared/routing/order-channels.js';
import { abortError } from '../shared/upstream/upstream-errors.js';
import { upstreamCallFor } from '../shared/upstream/upstream-call.js';
import { channelCall } from '../shared/routing/channel-call.js';
import { withFailover } from '../shared/routing/with-failover.js';
import { estimatedUsage, type TokenUsage } from '../shared/accounting/token-usage.js';
import { speechRequestSchema } from '../shared/schemas/speech-request.js';

/**
 * Speech is billed by input characters: the usage record carries them as `promptTokens` (and
 * `totalTokens`), since the accounting layer counts one unit per request kind.
 */
const characterUsage = (characters: number): TokenUsage => estimatedUsage(characters, 0);

/**
 * The audio as a byte stream for the response: chunks go out as they arrive; a client that goes away
 * destroys it, which aborts the upstream request; the usage record is written however it ends.
 */
const audioBody = (
  source: AsyncIterable<Buffer>,
  upstreamCall: AbortController,
  meter: RequestMeter,
  defer: (work: Promise<unknown>) => void,
): Readable => {
  let outcome: UsageStatus = 'client_aborted';
  async function* tracked(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of source) yield chunk;
      outcome = 'success';
    } catch (error) {
      // A failure after the first byte cannot become an error body: the connection is cut instead.
      outcome = upstreamCall.signal.aborted ? usageStatusFor(abortError(upstreamCall.signal)) : usageStatusFor(error);
      throw error;
    }
  }
  const body = Readable.from(tracked(), { objectMode: false });
  let settle: () => void = () => undefined;
  defer(new Promise<void>((resolve) => (settle = resolve)).then(() => meter.record(outcome, 200)));
  body.once('close', () => {
    if (outcome !== 'success') upstreamCall.abort();
    settle();
  });
  return body;
};

/** POST /v1/audio/speech: the text as binary audio, streamed from the first channel that answers. */
export const speech = gatewayHandler(
  { auth: 'user', body: speechRequestSchema, streaming: true },
  async (request): Promise<GatewayResponse> => {
    const { body, principal } = request;
    const model = await resolveUsableModel(principal, body.model);
    const channels = orderChannels(model, 'speech');
    const plan = {
      model,
      endpoint: 'speech',
      stream: true,
      channels,
      path: '/v1/audio/speech',
      // Speech usage counts input characters as its tokens (`characterUsage`), so admission does too.
      admission: { promptTokens: body.input.length, maxOutputTokens: 0, request: body },
      knownUsage: characterUsage(body.input.length),
    } as const;
    return meteredRequest(request, plan, async (meter) => {
      const upstreamCall = upstreamCallFor(request.signal);
      const { result: audio } = await withFailover(
        channels,
        (candidate) => speechAdapterOf(candidate.type).speak(channelCall(body, candidate, model, upstreamCall.signal)),
        { signal: upstreamCall.signal, meter },
      );
      return {
        statusCode: 200,
        headers: { 'content-type': audio.contentType, 'cache-control': 'no-cache' },
        body: audioBody(audio.body, upstreamCall, meter, request.defer),
      };
    });
  },
);
