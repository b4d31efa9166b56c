/**
 * Calls `onTimeout` once `ms` have passed, unless `done()` says the awaited thing came. The verdict
 * waits for the loop's next reads: timers run before the loop reads its sockets, and after a busy
 * stretch longer than the time allowed (a loaded process, a long collection), what was awaited may
 * be waiting unread; the upstream, not the gateway, is to be timed.
 */
export const timeoutAfterReads = (ms: number, done: () => boolean, onTimeout: () => void): NodeJS.Timeout =>
  setTimeout(
    () =>
      setImmediate(() => {
        if (!done()) onTimeout();
      }),
    ms,
  );
