import { log } from '../log.js';

/**
 * A small in-memory cache with a time to live. Deployed functions keep auth and configuration for a
 * few seconds so the hot path needs no read; a write made through this process clears every cache at
 * once, which is how the local runtime (admin and relay in one process) stays exact with caching on.
 *
 * A cold or just-expired fleet must not stampede the tables: concurrent misses on one key share one
 * load (single flight), and each entry lives a random 80–100 % of the TTL, so that instances warmed
 * together do not all expire, and reload, in the same instant. Jitter only ever shortens the life of
 * an entry, so a change reaches every warm instance within the stated TTL.
 *
 * An entry read in the last quarter of its life is reloaded in the background while the read gets
 * the cached value: under steady traffic no request waits on the store for a reload, only the first
 * after a quiet spell longer than the entry's life.
 */
const everyCache = new Set<TtlCache<unknown>>();

/** The share of the TTL by which an entry's life is randomly shortened. */
export const TTL_JITTER = 0.2;
/** The last share of an entry's life in which reading it starts a reload in the background. */
export const REFRESH_SHARE = 0.25;

/** Background reloads under way, each settled (a failure logged): functions wait on them before returning. */
const refreshes = new Set<Promise<void>>();

/**
 * Settles when every background reload started so far has. A function awaits it before its
 * invocation ends, so that Lambda never freezes a process with a store read half done.
 */
export const refreshesSettled = async (): Promise<void> => {
  while (refreshes.size > 0) await Promise.all(refreshes);
};

interface Entry<V> {
  readonly value: V;
  readonly expiresAt: number;
  /** From here on a read also starts a reload. */
  readonly refreshAt: number;
}

export class TtlCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly ttlMs: () => number,
    private readonly maxEntries = 10_000,
  ) {
    everyCache.add(this as TtlCache<unknown>);
  }

  get(key: string): V | undefined {
    return this.live(key, Date.now())?.value;
  }

  /** The key's entry while it lives; an expired one is dropped. */
  private live(key: string, now: number): Entry<V> | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.expiresAt > now) return entry;
    this.entries.delete(key);
    return undefined;
  }

  set(key: string, value: V): void {
    const ttl = this.ttlMs();
    if (ttl <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      // Oldest insertion first: Map keeps insertion order.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    const now = Date.now();
    const life = ttl * (1 - TTL_JITTER * Math.random());
    this.entries.set(key, { value, expiresAt: now + life, refreshAt: now + life * (1 - REFRESH_SHARE) });
  }

  /**
   * Returns the cached value, or loads, caches and returns it. Callers that miss while a load of the
   * same key is under way wait for that load instead of starting their own; a failed load is shared
   * too, and not cached. A value near the end of its life is returned at once and reloaded in the
   * background (one reload at a time); if that reload fails, the value stays until it expires.
   */
  getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.peek(key, load);
    return hit ? Promise.resolve(hit.value) : (this.loading.get(key) ?? this.load(key, load));
  }

  /**
   * The cached value as `getOrLoad` gives it (a value near the end of its life is reloaded in the
   * background), without a promise: undefined on a miss, which `getOrLoad` then loads. For the reads
   * of every request, whose hit then costs no turn of the microtask queue.
   */
  peek(key: string, load: () => Promise<V>): { readonly value: V } | undefined {
    const now = Date.now();
    const entry = this.live(key, now);
    if (entry !== undefined && entry.refreshAt <= now && !this.loading.has(key)) this.refresh(key, load);
    return entry;
  }

  private refresh(key: string, load: () => Promise<V>): void {
    const refreshed = this.load(key, load).then(
      () => undefined,
      (error: unknown) =>
        log.warn('cache reload failed; the cached value is kept until it expires', { error: String(error) }),
    );
    refreshes.add(refreshed);
    void refreshed.finally(() => refreshes.delete(refreshed));
  }

  /**
   * Starts the one load of `key`. Its value is cached only if it is still the key's current load: a
   * clear or a forget meanwhile means it may have read what was just changed.
   */
  private load(key: string, load: () => Promise<V>): Promise<V> {
    // `load` runs on the next microtask, so `loaded` is set before anything below can read it.
    const loaded: Promise<V> = Promise.resolve()
      .then(load)
      .then(
        (value) => {
          if (this.loading.get(key) !== loaded) return value;
          this.loading.delete(key);
          this.set(key, value);
          return value;
        },
        (error: unknown) => {
          if (this.loading.get(key) === loaded) this.loading.delete(key);
          throw error;
        },
      );
    this.loading.set(key, loaded);
    return loaded;
  }

  /** Forgets one key, and what a load of it under way would bring. */
  forget(key: string): void {
    this.entries.delete(key);
    // Callers after this start a fresh load rather than join one that may have read old data.
    this.loading.delete(key);
  }

  clear(): void {
    this.entries.clear();
    this.loading.clear();
  }
}

/** Forgets everything cached in this process; called after every admin write. */
export const invalidateCaches = (): void => {
  for (const cache of everyCache) cache.clear();
};

/** Cache lifetime for auth and configuration: `GATEWAY_CACHE_TTL_MS`, 30 s by default, at most 60 s. */
export const cacheTtlMs = (): number => {
  const configured = Number(process.env.GATEWAY_CACHE_TTL_MS ?? 30_000);
  return Number.isFinite(configured) ? Math.min(Math.max(configured, 0), 60_000) : 30_000;
};
