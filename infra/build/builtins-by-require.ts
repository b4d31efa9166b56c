/**
 * An esbuild plugin for the Lambda bundles: every Node built-in the bundled code imports is loaded
 * with `require` rather than `import`. For a built-in, Node's ES module loader builds a facade by
 * reading every export, and some exports are lazy getters that load whole subsystems nobody here
 * uses: `node:http`'s `WebSocket` and `EventSource` load undici (about 15 ms), `node:crypto`'s
 * `webcrypto` loads Web Crypto, `node:process`'s `report` loads diagnostic reports, `node:fs`'s
 * `promises` loads `fs/promises` with readline and the REPL history. `require` returns the module
 * object and touches none of them. The bundle's banner (`requireBanner`) defines `require`.
 */
import { builtinModules } from 'node:module';
import type { Plugin } from 'esbuild';

const NAMESPACE = 'builtin-by-require';
const builtins = new Set(builtinModules);

/** `node:crypto` and `crypto` alike, and subpaths such as `stream/promises`; `node:module` is the banner's. */
const builtinOf = (specifier: string): string | undefined => {
  const name = specifier.startsWith('node:') ? specifier.slice('node:'.length) : specifier;
  return builtins.has(name) && name !== 'module' ? name : undefined;
};

export const builtinsByRequire: Plugin = {
  name: 'builtins-by-require',
  setup(build) {
    build.onResolve({ filter: /^(node:)?[a-z_]+(\/[a-z_]+)?$/ }, ({ path, kind }) => {
      const name = builtinOf(path);
      if (!name) return undefined;
      // The stand-in's own `require` is left to the runtime; every other reference goes through it.
      if (kind === 'require-call') return { path: `node:${name}`, external: true };
      return { path: name, namespace: NAMESPACE };
    });
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, ({ path }) => ({
      contents: `module.exports = require(${JSON.stringify(`node:${path}`)});`,
      loader: 'js',
    }));
  },
};
