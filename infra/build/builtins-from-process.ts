/**
 * An esbuild plugin for the Lambda bundles: every Node built-in the bundled code imports or requires
 * is taken from `process.getBuiltinModule`. For a built-in, Node's ES module loader builds a facade by
 * reading every export, and some exports are lazy getters that load whole subsystems nobody here
 * uses: `node:http`'s `WebSocket` and `EventSource` load undici (about 15 ms), `node:crypto`'s
 * `webcrypto` loads Web Crypto, `node:process`'s `report` loads diagnostic reports, `node:fs`'s
 * `promises` loads `fs/promises` with readline and the REPL history. `getBuiltinModule` returns the
 * module object and touches none of them; and unlike `require`, it needs no `createRequire` in every
 * chunk of an ES module bundle (about a millisecond of a cold start, with `node:module` itself).
 */
import { readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import path from 'node:path';
import type { Metafile, Plugin } from 'esbuild';

const NAMESPACE = 'builtin-from-process';
const builtins = new Set(builtinModules);

/** `node:crypto` and `crypto` alike, and subpaths such as `stream/promises`. */
const builtinOf = (specifier: string): string | undefined => {
  const name = specifier.startsWith('node:') ? specifier.slice('node:'.length) : specifier;
  return builtins.has(name) ? name : undefined;
};

export const builtinsFromProcess: Plugin = {
  name: 'builtins-from-process',
  setup(build) {
    build.onResolve({ filter: /^(node:)?[a-z_]+(\/[a-z_]+)?$/ }, ({ path }) => {
      const name = builtinOf(path);
      return name ? { path: name, namespace: NAMESPACE } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, ({ path }) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(`node:${path}`)});`,
      loader: 'js',
    }));
  },
};

/**
 * What esbuild writes where bundled code calls `require` with a name it cannot resolve at build time:
 * an ES module bundle has no `require`, so that call would throw when it runs.
 */
export const DYNAMIC_REQUIRE_SHIM = 'Dynamic require of ';

/** Refuses a bundle that holds a `require` nothing would define: `metafile` names the files esbuild wrote. */
export const assertNoDynamicRequire = async (metafile: Metafile): Promise<void> => {
  for (const output of Object.keys(metafile.outputs)) {
    if ((await readFile(path.resolve(output), 'utf8')).includes(DYNAMIC_REQUIRE_SHIM))
      throw new Error(`${output} calls require with a name known only at run time: bundle it another way`);
  }
};
