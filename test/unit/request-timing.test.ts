import { jest } from '@jest/globals';
import { RequestTrace } from '../../functions/shared/observability/request-trace.js';
import { resetChannelHealth } from '../../functions/shared/routing/channel-health.js';
import { upstreamStatusError } from '../../functions/shared/upstream/upstream-errors.js';
import { withFailover } from '../../functions/shared/routing/with-failover.js';
import type { Channel } from '../../functions/shared/store/channels.js';

const channel = (id: string): Channel => ({
  id,
  type: 'openai',
  baseUrl: `http://${id}.invalid/v1`,
  models: ['m'],
  modelMap: {},
  endpoints: null,
  priority: 0,
  weight: 1,
  enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

/** Settles after `ms` of (fake) time, with a value or an error. */
const after = <T>(ms: number, outcome: () => T): Promise<T> =>
  new Promise((resolve, reject) =>
    setTimeout(() => {
      try {
        resolve(outcome());
      } catch (error) {
        reject(error);
      }
    }, ms),
  );

beforeEach(() => {
  resetChannelHealth();
  jest.useFakeTimers();
});
afterEach(() => jest.useRealTimers());

describe('RequestTrace', () => {
  test('splits the time to the head into the gateway part and the upstream part, and a stream body into upstream time', () => {
    const trace = new RequestTrace();
    jest.advanceTimersByTime(30);
    trace.upstreamTime(20);
    trace.responseHead();
    expect(trace.overheadMs).toBe(10);
    expect(trace.firstByteMs).toBe(30);
    expect(trace.timingHeaders()).toEqual({
      'x-gateway-overhead-ms': '10',
      'server-timing': 'gateway;dur=10, upstream;dur=20',
    });

    jest.advanceTimersByTime(100);
    trace.upstreamTime(50); // after the head: the stream's time is counted from its end instead
    trace.responseEnded();
    expect(trace.overheadMs).toBe(10);
    expect(trace.upstreamMs).toBe(120);
    expect(trace.latencyMs).toBe(130);
  });

  test('keeps the first head and the first end', () => {
    const trace = new RequestTrace();
    jest.advanceTimersByTime(5);
    trace.responseHead();
    trace.responseEnded();
    jest.advanceTimersByTime(50);
    trace.responseHead();
    trace.responseEnded();
    expect(trace.firstByteMs).toBe(5);
    expect(trace.latencyMs).toBe(5);
  });
});

describe('withFailover timing', () => {
  test('reports every attempt, failed ones included, and a Retry-After wait as upstream time', async () => {
    const reported: number[] = [];
    const script = [
      () =>
        after(40, () => {
          throw upstreamStatusError(429, 'slow down', { retryAfter: '1' });
        }),
      () => after(60, () => 'answer'),
    ];
    const result = withFailover([channel('a')], () => script.shift()!(), {
      meter: { upstreamTime: (ms) => reported.push(ms) },
    });
    await jest.advanceTimersByTimeAsync(40);
    await jest.advanceTimersByTimeAsync(1000);
    await jest.advanceTimersByTimeAsync(60);
    await expect(result).resolves.toMatchObject({ result: 'answer', attempts: 2 });
    expect(reported).toEqual([40, 1000, 60]);
  });
});
