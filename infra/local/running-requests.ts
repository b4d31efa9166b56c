/**
 * The requests the local runtime is serving, their invocations' work after the response included, so
 * that stopping the gateway lets them finish before the store goes. A count and its waiters rather
 * than a set of the requests' promises: an invocation waiting on its usage record (for tens of
 * milliseconds under load) is then followed by one reaction on its promise, where a set entry, a
 * `finally` and their callbacks kept five more objects of every such invocation past young collections.
 */
export class RunningRequests {
  private count = 0;
  private readonly waiters = new Set<() => void>();

  /** One more request being served. */
  started(): void {
    this.count += 1;
  }

  /** A request served to its end; made once, so that every request shares it. */
  readonly ended = (): void => {
    this.count -= 1;
    if (this.count > 0) return;
    for (const wake of [...this.waiters]) wake();
  };

  /** Resolves once no request is being served, or once `ms` have passed, whichever comes first. */
  settledWithin(ms: number): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }
}
