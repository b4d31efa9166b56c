import { randomUUID } from 'node:crypto';
import { readUsage } from '../../functions/shared/accounting/usage-query.js';
import type { UsageRecord } from '../../functions/shared/accounting/usage-records.js';
import type { Principal } from '../../functions/shared/auth/principal.js';
import type { CatalogModel } from '../../functions/shared/catalog/model-catalog.js';
import { toGatewayError } from '../../functions/shared/http/error-response.js';
import { json } from '../../functions/shared/http/response.js';
import type { GatewayRequest } from '../../functions/shared/middleware/gateway-handler.js';
import { meteredRequest, type MeteredPlan } from '../../functions/shared/middleware/metered-request.js';
import { usageStatusFor } from '../../functions/shared/middleware/request-meter.js';
import { RequestTrace } from '../../functions/shared/observability/request-trace.js';
import type { StreamOutcome } from '../../functions/shared/streaming/sse-response.js';
import type { Channel } from '../../functions/shared/store/channels.js';
import { ClientAbortedError, upstreamStatusError } from '../../functions/shared/upstream/upstream-errors.js';
import { useInMemoryStore } from '../support/in-memory-store.js';

/**
 * The metering every model endpoint shares, on its own: a real (in-memory) store, a request made by
 * hand, and a `serve` the test controls. Each case checks the one usage record the request leaves.
 */

useInMemoryStore();

const channel = { id: 'metered-channel', type: 'demo' } as Channel;

const model: CatalogModel = {
  id: 'metered-model',
  canonicalId: 'metered-model',
  ownedBy: 'model-gateway',
  created: 0,
  endpoints: ['chat'],
  channels: [channel],
  reasoning: false,
  settings: undefined,
  pricing: null,
  pricingSource: 'none',
};

const principalOf = (rateLimit: Principal['keyRateLimit'] = null): Principal => ({
  keyId: `key_${randomUUID()}`,
  keyPrefix: 'sk-test',
  accountId: `acct_${randomUUID()}`,
  role: 'user',
  expiresAt: null,
  accountModels: null,
  keyModels: null,
  keyRateLimit: rateLimit,
  accountRateLimit: null,
  quotaLimit: null,
});

/** A request as the gateway handler hands it over, with the deferred work collected to await. */
const requestFor = (principal: Principal) => {
  const deferred: (Promise<unknown> | (() => Promise<unknown>))[] = [];
  const request = {
    requestId: randomUUID(),
    principal,
    startedAt: Date.now(),
    signal: new AbortController().signal,
    trace: new RequestTrace(),
    defer: (work: Promise<unknown> | (() => Promise<unknown>)) => deferred.push(work),
  } as unknown as GatewayRequest<unknown>;
  // As the gateway handler does once the response has gone out: deferred functions start then.
  return { request, settled: () => Promise.all(deferred.map((work) => (typeof work === 'function' ? work() : work))) };
};

const planFor = (overrides: Partial<MeteredPlan> = {}): MeteredPlan => ({
  model,
  endpoint: 'chat',
  stream: false,
  channels: [channel],
  path: '/v1/chat/completions',
  admission: { promptTokens: 10, maxOutputTokens: 20 },
  ...overrides,
});

const usage = {
  promptTokens: 10,
  completionTokens: 5,
  totalTokens: 15,
  cachedTokens: 0,
  reasoningTokens: 0,
  source: 'upstream',
} as const;

/** The account's records of the last hour (each case has an account of its own). */
const recordsOf = (principal: Principal): Promise<UsageRecord[]> =>
  readUsage({
    accountId: principal.accountId,
    from: new Date(Date.now() - 3_600_000).toISOString(),
    to: new Date(Date.now() + 60_000).toISOString(),
  });

describe('meteredRequest', () => {
  it('records a whole answer once as a success, with the usage serve reported and the channel that served', async () => {
    const principal = principalOf();
    const { request, settled } = requestFor(principal);

    const response = await meteredRequest(request, planFor(), async (meter) => {
      meter.served(channel, 1);
      meter.usage(usage);
      return json(200, { ok: true });
    });
    await settled();

    expect(response.statusCode).toBe(200);
    const records = await recordsOf(principal);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      requestId: request.requestId,
      status: 'success',
      httpStatus: 200,
      channelId: channel.id,
      attempts: 1,
      promptTokens: 10,
      completionTokens: 5,
      usageSource: 'upstream',
    });
  });

  it("starts writing a whole answer's record only once the answer has gone out", async () => {
    const principal = principalOf();
    const { request, settled } = requestFor(principal);

    await meteredRequest(request, planFor(), async (meter) => {
      meter.served(channel, 1);
      meter.usage(usage);
      return json(200, { ok: true });
    });
    expect(request.trace.metered).toBeUndefined();
    expect(await recordsOf(principal)).toHaveLength(0);

    await settled();
    expect(request.trace.metered).toMatchObject({ outcome: 'success', promptTokens: 10 });
    expect(await recordsOf(principal)).toHaveLength(1);
  });

  it('puts the admission rate-limit headers on the answer, and refuses past the limit without serving', async () => {
    const principal = principalOf({ rpm: 1 });
    // Rate-limit windows are calendar minutes: both requests must fall in one.
    if (60_000 - (Date.now() % 60_000) < 5000) await new Promise((resolve) => setTimeout(resolve, 5100));
    const first = requestFor(principal);
    const response = await meteredRequest(first.request, planFor(), async () => json(200, {}));
    await first.settled();
    expect(response.headers['x-ratelimit-limit-requests']).toBe('1');

    const second = requestFor(principal);
    let served = false;
    const refusal = await meteredRequest(second.request, planFor(), async () => {
      served = true;
      return json(200, {});
    }).catch((error: unknown) => error);
    await second.settled();

    expect(served).toBe(false);
    expect(toGatewayError(refusal).status).toBe(429);
    const records = await recordsOf(principal);
    expect(records.find((record) => record.requestId === second.request.requestId)).toMatchObject({
      status: usageStatusFor(refusal),
      httpStatus: 429,
    });
  });

  it('refuses with 503 naming the path when no channel can serve, and records it', async () => {
    const principal = principalOf();
    const { request, settled } = requestFor(principal);

    const error = await meteredRequest(request, planFor({ channels: [] }), async () => json(200, {})).catch(
      (failure: unknown) => failure,
    );
    await settled();

    expect(toGatewayError(error)).toMatchObject({ status: 503 });
    expect(toGatewayError(error).message).toContain('/v1/chat/completions');
    expect(await recordsOf(principal)).toMatchObject([{ status: usageStatusFor(error), httpStatus: 503 }]);
  });

  it.each([
    ['an upstream failure', upstreamStatusError(502, 'bad gateway', {}), 'upstream_error'],
    ['the client leaving', new ClientAbortedError(), 'client_aborted'],
  ])('records %s with its status, and rethrows it', async (_name, failure, status) => {
    const principal = principalOf();
    const { request, settled } = requestFor(principal);

    const error = await meteredRequest(request, planFor(), async () => {
      throw failure;
    }).catch((thrown: unknown) => thrown);
    await settled();

    expect(error).toBe(failure);
    expect(await recordsOf(principal)).toMatchObject([{ status, httpStatus: toGatewayError(failure).status }]);
  });

  it('leaves a stream to record itself when it ends, with the known usage when nothing else was reported', async () => {
    const principal = principalOf();
    const { request, settled } = requestFor(principal);
    let endStream: (outcome: StreamOutcome) => void = () => undefined;

    await meteredRequest(request, planFor({ stream: true, knownUsage: usage }), async (meter) => {
      endStream = meter.recordWhenStreamEnds(() => ({ ...usage, completionTokens: 99, source: 'estimate' }));
      return json(200, {});
    });
    // The answer is out but the stream has not ended: nothing is recorded yet.
    expect(await recordsOf(principal)).toEqual([]);

    endStream({ kind: 'aborted' });
    await settled();

    expect(await recordsOf(principal)).toMatchObject([
      { status: 'client_aborted', stream: true, completionTokens: 5, usageSource: 'upstream' },
    ]);
  });

  it.each([
    ['usage was reported', true],
    ['none was reported', false],
  ])(
    'counts what a stream sent for its record only when the upstream reported no usage (%s)',
    async (_case, reported) => {
      const principal = principalOf();
      const { request, settled } = requestFor(principal);
      let estimates = 0;
      let endStream: (outcome: StreamOutcome) => void = () => undefined;

      await meteredRequest(request, planFor({ stream: true }), async (meter) => {
        if (reported) meter.usage(usage);
        endStream = meter.recordWhenStreamEnds(() => {
          estimates += 1;
          return {
            promptTokens: 7,
            completionTokens: 11,
            totalTokens: 18,
            cachedTokens: 0,
            reasoningTokens: 0,
            source: 'estimate',
          };
        });
        return json(200, {});
      });
      endStream({ kind: 'completed' });
      await settled();

      expect(estimates).toBe(reported ? 0 : 1);
      expect(await recordsOf(principal)).toMatchObject([
        reported ? { completionTokens: 5, usageSource: 'upstream' } : { completionTokens: 11, usageSource: 'estimate' },
      ]);
    },
  );
});
