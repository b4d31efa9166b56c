/**
 * A small in-memory cache with a time to live. Deployed functions keep auth and configuration for a
 * few seconds so the hot path needs no read; a write made through this process clears every cache at
 * once, which is how the local runtime (admin and relay in one process) stays exact with caching on.
 */
const everyCache = new Set<TtlCache<unknown>>();

export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    private readonly ttlMs: () => number,
    private readonly maxEntries = 10_000,
  ) {
    everyCache.add(this as TtlCache<unknown>);
  }

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    const ttl = this.ttlMs();
    if (ttl <= 0) return;
    if (this.entries.size >= this.maxEntries) {
      // Oldest insertion first: Map keeps insertion order.
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { value, expiresAt: Date.now() + ttl });
  }

  /** Returns the cached value, or loads, caches and returns it. */
  async getOrLoad(key: string, load: () => Promise<V>): Promise<V> {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = await load();
    this.set(key, value);
    return value;
  }

  clear(): void {
    this.entries.clear();
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
