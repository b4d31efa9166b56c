import { jest } from '@jest/globals';
import { captureLogLines } from '../support/captured-log-lines.js';
import { REFRESH_SHARE, refreshesSettled, TTL_JITTER, TtlCache } from '../../functions/shared/store/ttl-cache.js';

afterEach(() => jest.restoreAllMocks());

/** A load that resolves when the test says so, counting its calls. */
const controlledLoad = <V>() => {
  let calls = 0;
  let resolve: (value: V) => void = () => undefined;
  const load = () => {
    calls += 1;
    return new Promise<V>((done) => {
      resolve = done;
    });
  };
  return { load, calls: () => calls, resolve: (value: V) => resolve(value) };
};

describe('TtlCache', () => {
  test('100 concurrent misses on one key share one load', async () => {
    const cache = new TtlCache<string>(() => 30_000);
    const loader = controlledLoad<string>();
    const answers = Array.from({ length: 100 }, () => cache.getOrLoad('key', loader.load));
    await Promise.resolve();
    loader.resolve('value');
    expect(await Promise.all(answers)).toEqual(Array.from({ length: 100 }, () => 'value'));
    expect(loader.calls()).toBe(1);
    expect(await cache.getOrLoad('key', loader.load)).toBe('value');
    expect(loader.calls()).toBe(1);
  });

  test('a failed load is shared by its waiters and not cached', async () => {
    const cache = new TtlCache<string>(() => 30_000);
    let calls = 0;
    const failing = async () => {
      calls += 1;
      throw new Error('store down');
    };
    const results = await Promise.allSettled([cache.getOrLoad('key', failing), cache.getOrLoad('key', failing)]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toBe(1);
    expect(await cache.getOrLoad('key', async () => 'fresh')).toBe('fresh');
  });

  test('a load that started before a clear does not cache what it read, and later callers load afresh', async () => {
    const cache = new TtlCache<string>(() => 30_000);
    const stale = controlledLoad<string>();
    const before = cache.getOrLoad('key', stale.load);
    await Promise.resolve();
    cache.clear();
    const after = cache.getOrLoad('key', async () => 'new');
    stale.resolve('old');
    expect(await before).toBe('old');
    expect(await after).toBe('new');
    expect(cache.get('key')).toBe('new');
  });

  test('forget drops one key, and a load of it under way does not put back what it read', async () => {
    const cache = new TtlCache<string>(() => 30_000);
    await cache.getOrLoad('forgotten', async () => 'old');
    await cache.getOrLoad('kept', async () => 'kept');
    cache.forget('forgotten');
    expect(cache.get('forgotten')).toBeUndefined();

    const stale = controlledLoad<string>();
    const before = cache.getOrLoad('forgotten', stale.load);
    await Promise.resolve();
    cache.forget('forgotten');
    const after = cache.getOrLoad('forgotten', async () => 'new');
    stale.resolve('read before the forget');
    expect(await before).toBe('read before the forget');
    expect(await after).toBe('new');
    expect(cache.get('forgotten')).toBe('new');
    expect(cache.get('kept')).toBe('kept');
  });

  test('an entry never outlives the stated TTL, and jitter shortens it by at most its share', () => {
    const ttl = 10_000;
    const cache = new TtlCache<string>(() => ttl);
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    const random = jest.spyOn(Math, 'random');

    random.mockReturnValue(0);
    cache.set('longest', 'value');
    random.mockReturnValue(0.999_999);
    cache.set('shortest', 'value');

    now.mockReturnValue(1_000_000 + ttl * (1 - TTL_JITTER) - 1);
    expect(cache.get('shortest')).toBe('value');
    now.mockReturnValue(1_000_000 + ttl * (1 - TTL_JITTER) + 1);
    expect(cache.get('shortest')).toBeUndefined();
    now.mockReturnValue(1_000_000 + ttl - 1);
    expect(cache.get('longest')).toBe('value');
    now.mockReturnValue(1_000_000 + ttl);
    expect(cache.get('longest')).toBeUndefined();
  });

  describe('an entry in the last share of its life', () => {
    const ttl = 10_000;
    const start = 1_000_000;
    /** A cache holding `old` for `key`, set at `start` with the longest life (no jitter). */
    const warmed = async () => {
      const now = jest.spyOn(Date, 'now').mockReturnValue(start);
      jest.spyOn(Math, 'random').mockReturnValue(0);
      const cache = new TtlCache<string>(() => ttl);
      expect(await cache.getOrLoad('key', async () => 'old')).toBe('old');
      return { cache, now };
    };
    const refreshFrom = start + ttl * (1 - REFRESH_SHARE);

    test('is answered at once and reloaded in the background, one reload however many read it', async () => {
      const { cache, now } = await warmed();
      const reload = controlledLoad<string>();
      now.mockReturnValue(refreshFrom - 1);
      expect(await cache.getOrLoad('key', reload.load)).toBe('old');
      expect(reload.calls()).toBe(0);

      now.mockReturnValue(refreshFrom);
      const reads = await Promise.all(Array.from({ length: 10 }, () => cache.getOrLoad('key', reload.load)));
      expect(reads).toEqual(Array.from({ length: 10 }, () => 'old'));
      await Promise.resolve();
      expect(reload.calls()).toBe(1);

      let settled = false;
      const waiting = refreshesSettled().then(() => (settled = true));
      await Promise.resolve();
      expect(settled).toBe(false);
      reload.resolve('new');
      await waiting;
      expect(await cache.getOrLoad('key', reload.load)).toBe('new');
      expect(reload.calls()).toBe(1);
    });

    test('keeps its value when the reload fails, until it expires; then a read waits for a load', async () => {
      const { cache, now } = await warmed();
      now.mockReturnValue(refreshFrom);
      const log = captureLogLines('warn');
      try {
        expect(await cache.getOrLoad('key', async () => Promise.reject(new Error('store down')))).toBe('old');
        await refreshesSettled();
        expect(log.lines).toEqual([expect.objectContaining({ level: 'warn', error: 'Error: store down' })]);
      } finally {
        log.restore();
      }
      now.mockReturnValue(start + ttl - 1);
      const reload = controlledLoad<string>();
      expect(await cache.getOrLoad('key', reload.load)).toBe('old');
      await Promise.resolve();
      expect(reload.calls()).toBe(1);

      // That reload never answers: once the entry expires, a read joins it rather than starting another.
      now.mockReturnValue(start + ttl);
      const read = cache.getOrLoad('key', reload.load);
      reload.resolve('new');
      expect(await read).toBe('new');
      expect(reload.calls()).toBe(1);
      await refreshesSettled();
    });

    test('a reload under way when the cache is cleared does not put back what it read', async () => {
      const { cache, now } = await warmed();
      const reload = controlledLoad<string>();
      now.mockReturnValue(refreshFrom);
      expect(await cache.getOrLoad('key', reload.load)).toBe('old');
      await Promise.resolve();
      cache.clear();
      reload.resolve('read before the clear');
      await refreshesSettled();
      expect(cache.get('key')).toBeUndefined();
      expect(await cache.getOrLoad('key', async () => 'after the clear')).toBe('after the clear');
    });
  });
});
