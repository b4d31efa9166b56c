import type { UsageStatus } from '../accounting/usage-records.js';
import type { EndpointKind } from '../store/channels.js';

/** What the meter learned about a metered request, for its log line and metrics. */
export interface MeteredFacts {
  readonly model: string;
  readonly endpoint: EndpointKind;
  readonly stream: boolean;
  readonly channelId: string | null;
  readonly attempts: number;
  readonly outcome: UsageStatus;
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
  readonly cost: number;
}

/** Milliseconds with two decimals: sub-millisecond overheads stay visible, lines stay short. */
export const roundMs = (value: number): number => Math.round(value * 100) / 100;

/**
 * Where one request's time went: the gateway's own work against the time spent waiting on upstreams.
 * "Upstream" is every attempt of `withFailover` (the call, its translation, a Retry-After wait) up
 * to the response head; for a stream, the time from the head to the stream's end counts as upstream
 * too, since the gateway then only forwards what arrives. Overhead is everything else up to the head:
 * for a buffered answer the whole response, for a stream its first byte.
 */
export class RequestTrace {
  private readonly started = performance.now();
  private upstreamBeforeHead = 0;
  private headAt: number | undefined;
  private endedAt: number | undefined;
  /** Set by the request's meter when it records the request. */
  metered: MeteredFacts | undefined;

  /**
   * Adds time spent waiting on an upstream. A method, not an arrow bound in a field: a closure made
   * in the constructor and stored on the instance kept every trace alive past young collections.
   */
  upstreamTime(milliseconds: number): void {
    if (this.headAt === undefined) this.upstreamBeforeHead += milliseconds;
  }

  /** Marks the response head as sent; later calls keep the first mark. */
  responseHead(): void {
    this.headAt ??= performance.now();
  }

  /** Marks the end of the response body (a stream's end; a buffered response ends at its head). */
  responseEnded(): void {
    this.endedAt ??= performance.now();
  }

  /** The gateway's own time up to the head, or up to now while the head is not out yet. */
  get overheadMs(): number {
    return roundMs(Math.max(0, (this.headAt ?? performance.now()) - this.started - this.upstreamBeforeHead));
  }

  /** Time to the response head (the first byte the client gets). */
  get firstByteMs(): number {
    return roundMs((this.headAt ?? performance.now()) - this.started);
  }

  /** Upstream time up to the head; with the streamed part once the stream has ended. */
  get upstreamMs(): number {
    const head = this.headAt ?? performance.now();
    const streamed = this.endedAt !== undefined && this.endedAt > head ? this.endedAt - head : 0;
    return roundMs(this.upstreamBeforeHead + streamed);
  }

  /** From the request's arrival to the end of its response. */
  get latencyMs(): number {
    const head = this.headAt ?? performance.now();
    return roundMs(Math.max(head, this.endedAt ?? head) - this.started);
  }

  /** The response headers that tell the client where the time went (`Server-Timing` is the W3C header). */
  timingHeaders(): Record<string, string> {
    const overhead = this.overheadMs;
    const upstream = roundMs(this.upstreamBeforeHead);
    return {
      'x-gateway-overhead-ms': String(overhead),
      'server-timing': `gateway;dur=${overhead}, upstream;dur=${upstream}`,
    };
  }
}
