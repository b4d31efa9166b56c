import type { TokenUsage } from '../accounting/token-usage.js';
import type { GatewayResponse } from '../http/response.js';
import { withFailover } from '../routing/with-failover.js';
import type { Channel } from '../store/channels.js';
import type { PassThroughStream } from '../streaming/pass-through-stream.js';
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
  /**
   * Where the channel speaks the client's own protocol, opens a stream whose bytes are relayed as they
   * come (model renamed, usage read); `undefined` where the channel needs translation.
   */
  openPassThrough?(channel: Channel, signal: AbortSignal): Promise<PassThroughStream> | undefined;
  /** The client's events from the upstream's, as they arrive, under the public model id, usage metered. */
  toClient(upstream: AsyncIterable<Upstream>): AsyncIterable<OutgoingEvent>;
  /**
   * The usage to record when the upstream reported none: what the client was sent (on a relayed
   * stream, `relayedText` is the answer text it carried).
   */
  estimate(relayedText?: string): TokenUsage;
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
  const { result } = await withFailover(
    plan.channels,
    (channel): Promise<PassThroughStream | AsyncIterable<Upstream>> =>
      plan.openPassThrough?.(channel, upstreamCall.signal) ?? plan.open(channel, upstreamCall.signal),
    { signal: upstreamCall.signal, meter: plan.meter },
  );
  const relayed = isPassThrough(result) ? result : undefined;
  const stream = new SseStream(relayed ? relayed.relay : plan.toClient(result as AsyncIterable<Upstream>), {
    ...plan.framing,
    abort: () => upstreamCall.abort(),
    onFinish: plan.meter.recordWhenStreamEnds(() => plan.estimate(relayed?.completionText())),
  });
  return sseResponse(stream);
};

const isPassThrough = (value: object): value is PassThroughStream => 'relay' in value && 'completionText' in value;
