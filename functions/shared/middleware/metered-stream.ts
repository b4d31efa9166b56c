import type { TokenUsage } from '../accounting/token-usage.js';
import type { GatewayResponse } from '../http/response.js';
import { withFailover } from '../routing/with-failover.js';
import type { Channel } from '../store/channels.js';
import { SseStream, sseResponse, type OutgoingEvent, type SseOptions } from '../streaming/sse-response.js';
import { upstreamCallFor } from '../upstream/upstream-call.js';
import type { RequestMeter } from './request-meter.js';

/** What an endpoint says about its event stream; `meteredStream` does the rest. */
export interface MeteredStreamPlan<Upstream> {
  readonly channels: readonly Channel[];
  readonly meter: RequestMeter;
  /** The request's signal: the client leaving closes the upstream call at once. */
  readonly client: AbortSignal;
  /** Opens the stream on one channel; rejects with an UpstreamError before the first byte to fail over. */
  open(channel: Channel, signal: AbortSignal): Promise<AsyncIterable<Upstream>>;
  /** The client's events from the upstream's, as they arrive, under the public model id, usage metered. */
  toClient(upstream: AsyncIterable<Upstream>): AsyncIterable<OutgoingEvent>;
  /** The usage to record when the upstream reported none: what the client was sent. */
  estimate(): TokenUsage;
  /** The protocol's framing: its terminator and its error event or envelope. */
  readonly framing?: Pick<SseOptions, 'terminator' | 'errorEvent' | 'errorFormat'>;
}

/**
 * The one entry of every metered event stream: one abort scope for the upstream call (the client
 * leaving closes it, even while failover is still looking for a channel), failover until a channel
 * starts a stream, SSE framing, and the meter's record when the stream ends, however it ends.
 */
export const meteredStream = async <Upstream>(plan: MeteredStreamPlan<Upstream>): Promise<GatewayResponse> => {
  const upstreamCall = upstreamCallFor(plan.client);
  const { result } = await withFailover(plan.channels, (channel) => plan.open(channel, upstreamCall.signal), {
    signal: upstreamCall.signal,
    meter: plan.meter,
  });
  const stream = new SseStream(plan.toClient(result), {
    ...plan.framing,
    abort: () => upstreamCall.abort(),
    onFinish: plan.meter.recordWhenStreamEnds(plan.estimate),
  });
  return sseResponse(stream);
};
