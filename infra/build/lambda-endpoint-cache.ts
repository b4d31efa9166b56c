/**
 * Stands in for `@aws-sdk/endpoint-cache` in the Lambda bundles (see `moduleAliases` in
 * `esbuild-options.ts`). The DynamoDB client builds one of these caches in its constructor, for
 * endpoint discovery, but none of its commands adds the discovery middleware that would read it, so
 * it stays empty. The package's own cache sits on `mnemonist`'s LRU (CommonJS, about 7 KB of every
 * bundle); this one keeps the same behaviour on a `Map`, which remembers insertion order.
 */
export interface Endpoint {
  readonly Address: string;
  readonly CachePeriodInMinutes: number;
}

interface EndpointWithExpiry {
  readonly Address: string;
  readonly Expires: number;
}

export class EndpointCache {
  private readonly cache = new Map<string, EndpointWithExpiry[]>();

  constructor(private readonly capacity: number) {}

  /** One of the key's live endpoints, picked at random, as the SDK does. */
  getEndpoint(key: string): string | undefined {
    const endpoints = this.get(key);
    if (!endpoints || endpoints.length === 0) return undefined;
    return endpoints[Math.floor(Math.random() * endpoints.length)]!.Address;
  }

  get(key: string): EndpointWithExpiry[] | undefined {
    if (!this.has(key)) return undefined;
    const value = this.cache.get(key)!;
    // A read makes the key the most recently used, as in an LRU.
    this.cache.delete(key);
    this.cache.set(key, value);
    const now = Date.now();
    const live = value.filter((endpoint) => now < endpoint.Expires);
    if (live.length === 0) {
      this.delete(key);
      return undefined;
    }
    return live;
  }

  set(key: string, endpoints: readonly Endpoint[]): void {
    const now = Date.now();
    this.cache.delete(key);
    this.cache.set(
      key,
      endpoints.map(({ Address, CachePeriodInMinutes }) => ({
        Address,
        Expires: now + CachePeriodInMinutes * 60 * 1000,
      })),
    );
    // Evicts the least recently used key once over capacity.
    if (this.cache.size > this.capacity) this.cache.delete(this.cache.keys().next().value!);
  }

  delete(key: string): void {
    this.set(key, []);
  }

  has(key: string): boolean {
    return (this.cache.get(key)?.length ?? 0) > 0;
  }

  clear(): void {
    this.cache.clear();
  }
}
