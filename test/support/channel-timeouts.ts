/**
 * Channel timeouts for suites that never exercise one: long enough that a loaded CI host, with
 * several jest workers and module transforms on two cores, cannot turn a slow first answer into a
 * 504. Suites that test a timeout set the limit they test, and only that one, tight.
 */
export const GENEROUS_TIMEOUTS = { firstByteMs: 15_000, idleMs: 15_000 } as const;
