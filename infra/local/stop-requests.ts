/** Signals that ask the gateway to stop: Ctrl-C, a service manager's stop, a closed terminal. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** How often the gateway checks that the process that started it (npm, a shell, a supervisor) is still there. */
const PARENT_CHECK_MS = 1000;

/**
 * Resolves with the reason once this process is asked to stop: a stop signal, or its parent going
 * away (the gateway is then re-parented, and must not run on as an orphan). The listeners are
 * installed at once, so a signal during start-up stops the gateway cleanly instead of killing it, and
 * they stay installed: a signal sent to the whole process group arrives twice (once from the sender,
 * once forwarded by npm), and the repeat must not cut the drain short.
 */
export const whenStopRequested = (): Promise<string> =>
  new Promise((resolve) => {
    for (const signal of STOP_SIGNALS) process.on(signal, () => resolve(signal));
    const parent = process.ppid;
    setInterval(() => {
      if (process.ppid !== parent) resolve('parent process exited');
    }, PARENT_CHECK_MS).unref();
  });
