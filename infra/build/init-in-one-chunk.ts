/**
 * An esbuild plugin: everything a function's cold start runs goes into one chunk. Code splitting puts
 * a file in a chunk named by the set of entries that reach it, and every dynamic `import()` target is
 * an entry; so the entry's own code is cut into one chunk per set of lazily loaded modules that share
 * it (19 files for chat), and Node's module loader reads, compiles and links each one at init, about a
 * third of a millisecond apiece. A module can only be imported dynamically after the entry has run,
 * so each dynamic import is pointed at a stand-in that imports the entry first and then re-exports
 * the module: every file the entry reaches is then reached by every entry alike, and lands in one
 * chunk.
 */
import type { Plugin, PluginBuild } from 'esbuild';

const NAMESPACE = 'after-entry';

/** Whether a module has a default export, which `export *` does not pass on; esbuild reads it. */
const hasDefaultExport = async (build: PluginBuild, file: string): Promise<boolean> => {
  const { metafile } = await build.esbuild.build({
    entryPoints: [file],
    bundle: false,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'node',
    logLevel: 'silent',
  });
  return Object.values(metafile.outputs).some((output) => output.exports.includes('default'));
};

export const initInOneChunk = (entry: string): Plugin => ({
  name: 'init-in-one-chunk',
  setup(build) {
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind !== 'dynamic-import' || args.namespace === NAMESPACE) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: 'import-statement',
        importer: args.importer,
        resolveDir: args.resolveDir,
        namespace: args.namespace,
      });
      if (resolved.errors.length > 0 || resolved.external) return undefined;
      return { path: resolved.path, namespace: NAMESPACE, pluginData: resolved.namespace };
    });
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, async ({ path, pluginData }) => {
      const target = JSON.stringify(path);
      const lines = [`import ${JSON.stringify(entry)};`, `export * from ${target};`];
      // A built-in stands in as a CommonJS module (builtins-from-process.ts): it always has one.
      if (pluginData !== 'file' || (await hasDefaultExport(build, path)))
        lines.push(`export { default } from ${target};`);
      return { contents: lines.join('\n'), loader: 'js', resolveDir: '/' };
    });
  },
});
