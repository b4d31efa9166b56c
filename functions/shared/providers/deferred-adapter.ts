/**
 * An adapter whose vendor code (translation, stream parsing, response schemas) is imported on its
 * first call rather than at the function's cold start: an instance compiles and builds only the
 * vendors its channels use. Bundled as a chunk beside the entry. Every adapter method is async, so the
 * stand-in has the adapter's own shape; `methods` names each of them (the compiler checks the list).
 */
export const onFirstCall = <Adapter extends object>(
  load: () => Promise<Adapter>,
  methods: Readonly<Record<keyof Adapter, true>>,
): Adapter => {
  let loading: Promise<Adapter> | undefined;
  // Loaded once per instance; a failed import is tried again on the next call.
  const loaded = () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
  const standIn: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
  for (const name of Object.keys(methods)) {
    standIn[name] = async (...args: unknown[]) => {
      const adapter = (await loaded()) as Record<string, (...args: unknown[]) => Promise<unknown>>;
      return adapter[name]!(...args);
    };
  }
  return standIn as Adapter;
};
