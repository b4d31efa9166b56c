import { jest } from '@jest/globals';
import {
  BASE_COOLDOWN_MS,
  FAILURES_BEFORE_COOLDOWN,
  channelCoolingUntil,
  healthyFirst,
  recordChannelFailure,
  recordChannelSuccess,
  resetChannelHealth,
} from '../../functions/shared/routing/channel-health.js';
import {
  ClientAbortedError,
  UpstreamError,
  upstreamStatusError,
  upstreamTimeout,
} from '../../functions/shared/upstream/upstream-errors.js';
import { MAX_ATTEMPTS, MAX_RETRY_AFTER_WAIT_MS, withFailover } from '../../functions/shared/routing/with-failover.js';
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

const [a, b, c] = [channel('a'), channel('b'), channel('c')];

/** An attempt that answers per channel id from a script: an error to throw or a value to return. */
const scripted = (script: Record<string, Array<Error | string>>) => {
  const calls: string[] = [];
  const attempt = async (target: Channel): Promise<string> => {
    calls.push(target.id);
    const next = script[target.id]?.shift();
    if (next === undefined) throw new Error(`unexpected call to ${target.id}`);
    if (next instanceof Error) throw next;
    return next;
  };
  return { attempt, calls };
};

const serverError = () => upstreamStatusError(500, 'boom');
const rateLimited = (retryAfter: string) => upstreamStatusError(429, 'slow down', { retryAfter });

beforeEach(() => resetChannelHealth());
afterEach(() => jest.useRealTimers());

describe('channel health', () => {
  it('keeps a channel in line until it has failed several times in a row', () => {
    for (let i = 1; i < FAILURES_BEFORE_COOLDOWN; i++) recordChannelFailure('a', undefined);
    expect(healthyFirst([a, b]).map(({ id }) => id)).toEqual(['a', 'b']);
    recordChannelFailure('a', undefined);
    expect(healthyFirst([a, b]).map(({ id }) => id)).toEqual(['b', 'a']);
  });

  it('cools a channel at once for as long as its Retry-After asked', () => {
    const now = 1_000_000;
    recordChannelFailure('a', 7_000, now);
    expect(channelCoolingUntil('a', now)).toBe(now + 7_000);
    expect(channelCoolingUntil('a', now + 7_001)).toBe(0);
  });

  it('doubles the cooldown when the channel fails again right after it, and forgets on success', () => {
    const now = 1_000_000;
    for (let i = 0; i < FAILURES_BEFORE_COOLDOWN; i++) recordChannelFailure('a', undefined, now);
    expect(channelCoolingUntil('a', now)).toBe(now + BASE_COOLDOWN_MS);
    const later = now + BASE_COOLDOWN_MS + 1;
    recordChannelFailure('a', undefined, later);
    expect(channelCoolingUntil('a', later)).toBe(later + 2 * BASE_COOLDOWN_MS);
    recordChannelSuccess('a');
    expect(channelCoolingUntil('a', later)).toBe(0);
  });

  it('puts cooling channels last, soonest back first, and never drops them', () => {
    const now = 1_000_000;
    recordChannelFailure('a', 9_000, now);
    recordChannelFailure('b', 3_000, now);
    expect(healthyFirst([a, b, c], now).map(({ id }) => id)).toEqual(['c', 'b', 'a']);
    expect(healthyFirst([a, b], now).map(({ id }) => id)).toEqual(['b', 'a']);
  });
});

describe('withFailover', () => {
  it('moves on to the next channel after a retryable failure and says who answered', async () => {
    const { attempt, calls } = scripted({ a: [serverError()], b: ['from b'] });
    await expect(withFailover([a, b], attempt)).resolves.toMatchObject({
      result: 'from b',
      channel: { id: 'b' },
      attempts: 2,
    });
    expect(calls).toEqual(['a', 'b']);
  });

  it('tells the meter of every attempt, so a request that fails still names its last channel', async () => {
    const seen: Array<[string, number]> = [];
    const meter = { served: (target: Channel, attempts: number) => seen.push([target.id, attempts]) };
    const { attempt } = scripted({ a: [serverError()], b: [serverError()] });
    await expect(withFailover([a, b], attempt, { meter })).rejects.toBeInstanceOf(UpstreamError);
    expect(seen).toEqual([
      ['a', 1],
      ['b', 2],
    ]);
  });

  it('does not retry a failure that is the request’s own fault', async () => {
    const refused = upstreamStatusError(400, 'bad field');
    const { attempt, calls } = scripted({ a: [refused], b: ['from b'] });
    await expect(withFailover([a, b], attempt)).rejects.toBe(refused);
    expect(calls).toEqual(['a']);
  });

  it(`stops after ${MAX_ATTEMPTS} attempts and throws the last failure`, async () => {
    const channels = ['p', 'q', 'r', 's', 't'].map(channel);
    const last = upstreamTimeout('no response');
    const { attempt, calls } = scripted({
      p: [serverError()],
      q: [serverError()],
      r: [last],
      s: ['never'],
      t: ['never'],
    });
    await expect(withFailover(channels, attempt)).rejects.toBe(last);
    expect(calls).toEqual(['p', 'q', 'r']);
  });

  it('tries a channel that kept failing only after the healthy ones, on later requests', async () => {
    for (let i = 0; i < FAILURES_BEFORE_COOLDOWN; i++) {
      await withFailover([a, b], scripted({ a: [serverError()], b: ['ok'] }).attempt);
    }
    const { attempt, calls } = scripted({ b: ['from b'] });
    await expect(withFailover([a, b], attempt)).resolves.toMatchObject({ channel: { id: 'b' }, attempts: 1 });
    expect(calls).toEqual(['b']);
  });

  it('waits out a short Retry-After and asks the same channel again when no other is left', async () => {
    jest.useFakeTimers({ now: 5_000_000 });
    const { attempt, calls } = scripted({ a: [rateLimited('2'), 'after the wait'] });
    const outcome = withFailover([a], attempt);
    await jest.advanceTimersByTimeAsync(1_999);
    expect(calls).toEqual(['a']);
    await jest.advanceTimersByTimeAsync(1);
    await expect(outcome).resolves.toMatchObject({ result: 'after the wait', attempts: 2 });
    expect(calls).toEqual(['a', 'a']);
  });

  it('goes to another channel at once rather than waiting for one that asked for time', async () => {
    const { attempt, calls } = scripted({ a: [rateLimited('3')], b: ['from b'] });
    await expect(withFailover([a, b], attempt)).resolves.toMatchObject({ channel: { id: 'b' } });
    expect(calls).toEqual(['a', 'b']);
    expect(healthyFirst([a, b]).map(({ id }) => id)).toEqual(['b', 'a']);
  });

  it('hands a long Retry-After to the client instead of waiting, with the header', async () => {
    const longWait = `${MAX_RETRY_AFTER_WAIT_MS / 1000 + 55}`;
    const { attempt, calls } = scripted({ a: [rateLimited(longWait)] });
    const error = (await withFailover([a], attempt).catch((thrown: unknown) => thrown)) as UpstreamError;
    expect(calls).toEqual(['a']);
    expect(error.status).toBe(429);
    expect(error.headers['retry-after']).toBe(longWait);
  });

  it('stops waiting when the client goes away', async () => {
    jest.useFakeTimers({ now: 5_000_000 });
    const client = new AbortController();
    const { attempt, calls } = scripted({ a: [rateLimited('4'), 'never'] });
    const outcome = withFailover([a], attempt, { signal: client.signal });
    const settled = expect(outcome).rejects.toBeInstanceOf(ClientAbortedError);
    await jest.advanceTimersByTimeAsync(1_000);
    client.abort();
    await settled;
    expect(calls).toEqual(['a']);
  });
});
