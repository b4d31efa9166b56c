import type * as z from './zod.js';

/**
 * A schema (or a set of schema fields) built on its first use, not when its module loads. zod builds
 * every schema's parser objects at construction, and a function's modules define the schemas of all
 * its endpoints and upstream kinds; a cold start serves one of each. Built at load, they were the
 * largest share of the gateway's own init. A schema made of others calls them inside its builder, so
 * nothing is built until something parses, and a part shared by two schemas is still built once.
 */
export const lazySchema = <Built>(build: () => Built): (() => Built) => {
  let built: Built | undefined;
  return () => (built ??= build());
};

/** What a lazily built schema parses to. */
export type LazyOutput<Schema extends () => z.ZodMiniType> = z.output<ReturnType<Schema>>;
