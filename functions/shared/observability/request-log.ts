import type { AuditActor } from '../store/audit-entry.js';
import type { Principal } from '../auth/principal.js';
import { log } from '../log.js';
import { clockTime, logFormat } from '../log-format.js';
import { metricsMember } from './embedded-metrics.js';
import { requestMetrics, type RequestMetrics } from './request-metrics.js';
import type { RequestTrace } from './request-trace.js';

/** Told of every finished request (the local runtime's metrics summary); none on Lambda. */
export const finishedRequestObservers = new Set<
  (metrics: RequestMetrics, model: string | undefined, accountId: string | undefined) => void
>();

export interface FinishedRequest {
  readonly method: string;
  readonly path: string;
  readonly requestId: string;
  /** The status the client got; 200 for a stream, however it ended. */
  readonly status: number;
  readonly principal: Principal | undefined;
  /** Who acted, on the admin plane: an admin key or a console user (audit-actor.ts). */
  readonly actor?: AuditActor;
  readonly trace: RequestTrace;
}

/** `05:31:02 POST /v1/chat/completions 200 demo-1 42 tokens $0.0001 12 ms`: a request in a terminal. */
const requestTextLine = (
  method: string,
  path: string,
  status: number,
  model: string | undefined,
  metrics: RequestMetrics,
): string =>
  [
    clockTime(new Date()),
    method,
    path,
    status,
    model,
    metrics.totalTokens > 0 ? `${metrics.totalTokens} tokens` : undefined,
    metrics.cost > 0 ? `$${metrics.cost.toFixed(6).replace(/0{1,4}$/, '')}` : undefined,
    `${Math.round(metrics.latencyMs)} ms`,
  ]
    .filter((part) => part !== undefined)
    .join(' ');

/**
 * The one log line of a request, written when it has completely ended (stream and usage record
 * included): who, what, how it ended, tokens, cost and where the time went, plus the `_aws` member
 * that makes CloudWatch read the same line as metrics. Ids and a key's prefix only, never a key.
 */
export const logFinishedRequest = ({
  method,
  path,
  requestId,
  status,
  principal,
  actor,
  trace,
}: FinishedRequest): void => {
  const metered = trace.metered;
  const metrics = requestMetrics(
    status,
    {
      latencyMs: trace.latencyMs,
      firstByteMs: trace.firstByteMs,
      upstreamMs: trace.upstreamMs,
      overheadMs: trace.overheadMs,
    },
    metered,
  );
  for (const observe of finishedRequestObservers) observe(metrics, metered?.model, principal?.accountId);
  if (logFormat() === 'text') {
    // A terminal gets one short line a person reads; health probes, answered every few seconds, none.
    if (!(path === '/health' && status === 200))
      log.text(requestTextLine(method, path, status, metered?.model, metrics));
    return;
  }
  // Only what came from outside (the method and path a client sent, the model id an admin named) can
  // hold a secret, and is scanned like any log field; the ids, names and numbers the gateway made go
  // in as they are: scanning them too was a fifth of the line's cost.
  const made = JSON.stringify({
    requestId,
    status,
    ...(principal ? { accountId: principal.accountId, keyId: principal.keyId, keyPrefix: principal.keyPrefix } : {}),
    ...(metered
      ? {
          endpoint: metered.endpoint,
          stream: metered.stream,
          channelId: metered.channelId,
          attempts: metered.attempts,
          outcome: metered.outcome,
        }
      : {}),
    ...metrics,
  });
  // The actor of an admin or console request: a console user's id is an e-mail address, from outside.
  const named = actor ? { method, path, actor } : { method, path };
  log.info(
    'request',
    metered ? { ...named, model: metered.model } : named,
    `${metricsMember(metrics, metered !== undefined, principal !== undefined, Date.now())},${made.slice(1, -1)}`,
  );
};
