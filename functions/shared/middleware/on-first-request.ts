type Loose = (...args: unknown[]) => Promise<unknown>;

/**
 * A handler whose module (its schemas, its translation, its store reads) is imported on its first
 * request, not at the function's cold start: a function that serves several routes compiles only
 * those an instance serves. Bundled as a chunk beside the entry. Concurrent first requests share the
 * import; a failed import is tried again on the next request; once loaded, requests go straight to it.
 */
export const onFirstRequest = <Handler extends (...args: never[]) => Promise<unknown>>(
  load: () => Promise<Handler>,
): Handler => {
  let loaded: Loose | undefined;
  let loading: Promise<Loose> | undefined;
  const handler: Loose = (...args) => {
    if (loaded) return loaded(...args);
    loading ??= load().then(
      (module) => (loaded = module as unknown as Loose),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading.then((module) => module(...args));
  };
  return handler as unknown as Handler;
};
