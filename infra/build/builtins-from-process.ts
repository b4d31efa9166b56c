/**
 * An esbuild plugin for the Lambda bundles: every Node built-in the bundled code imports or requires
 * is taken from `process.getBuiltinModule`. For a built-in, Node's ES module loader builds a facade by
 * reading every export, and some exports are lazy getters that load whole subsystems nobody here
 * uses: `node:http`'s `WebSocket` and `EventSource` load undici (about 15 ms), `node:crypto`'s
 * `webcrypto` loads Web Crypto, `node:process`'s `report` loads diagnostic reports, `node:fs`'s
 * `promises` loads `fs/promises` with readline and the REPL history. `getBuiltinModule` returns the
 * module object and touches none of them; and unlike `require`, it needs no `createRequire` in every
 * chunk of an ES module bundle (about a millisecond of a cold start, with `node:module` itself).
 *
 * An `import` gets an ES module that exports each of the built-in's members as its own binding, read
 * only if something imports it (esbuild drops the rest), its members behind getters from a small
 * CommonJS module of those getters; `require` and a dynamic `import()` get the module object itself.
 * The module object would do for all, but every file importing from it would then pay esbuild's
 * namespace copy at init, a getter defined for each of the built-in's members: 678 of them for the
 * chat function's 13 imports, about 1.5 ms of its import.
 */
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import path from 'node:path';
import type { Metafile, Plugin } from 'esbuild';

/** Where a built-in is the module object (CommonJS), an ES module of its members, or a module of its getters. */
const NAMESPACE = 'builtin-from-process';
const MODULE_NAMESPACE = 'builtin-module-from-process';
const GETTERS_NAMESPACE = 'builtin-getters-from-process';
/** `init-in-one-chunk.ts`'s stand-ins re-export a lazily imported module whole: the module object serves them. */
const WHOLE_MODULE_IMPORTERS = new Set(['after-entry']);
const builtins = new Set(builtinModules);

/** `node:crypto` and `crypto` alike, and subpaths such as `stream/promises`. */
const builtinOf = (specifier: string): string | undefined => {
  const name = specifier.startsWith('node:') ? specifier.slice('node:'.length) : specifier;
  return builtins.has(name) ? name : undefined;
};

const specifierOf = (name: string) => `node:${name}`;

interface Members {
  readonly plain: readonly string[];
  readonly behindGetters: readonly string[];
}

/**
 * A built-in's members as a fresh Node process has them. Not this process's: Node turns a lazy getter
 * into a plain value once it is read, so what the build process happened to read would change the
 * bundle.
 */
const membersOf = (() => {
  const known = new Map<string, Members>();
  const script = `
    const builtin = process.getBuiltinModule(process.argv[1]);
    const names = Object.getOwnPropertyNames(builtin).filter((name) => name !== 'default');
    const getter = (name) => Boolean(Object.getOwnPropertyDescriptor(builtin, name).get);
    process.stdout.write(JSON.stringify({
      plain: names.filter((name) => !getter(name)),
      behindGetters: names.filter(getter),
    }));`;
  return (name: string): Members => {
    let members = known.get(name);
    if (!members) {
      const listed = spawnSync(process.execPath, ['--eval', script, specifierOf(name)], { encoding: 'utf8' });
      if (listed.status !== 0) throw new Error(`could not list the members of node:${name}: ${listed.stderr}`);
      members = JSON.parse(listed.stdout) as Members;
      known.set(name, members);
    }
    return members;
  };
})();

/**
 * An ES module for the built-in `name`: its plain members, each read by a call esbuild drops when
 * nothing imports that member. A member the runtime's Node lacks reads as undefined, as it would from
 * the module object. A member behind a getter is re-exported from `gettersOf`, to be read where it is
 * used: several load a subsystem when first read (`fs`'s `ReadStream` its streams, about a
 * millisecond), which a binding made at init would always pay.
 */
const builtinAsModule = (name: string): string => {
  const { plain, behindGetters } = membersOf(name);
  return [
    `const builtin = process.getBuiltinModule(${JSON.stringify(specifierOf(name))});`,
    'export default builtin;',
    ...plain.map((member, index) => `const m${index} = /* @__PURE__ */ (() => builtin[${JSON.stringify(member)}])();`),
    `export { ${plain.map((member, index) => `m${index} as ${JSON.stringify(member)}`).join(', ')} };`,
    ...(behindGetters.length > 0
      ? [`export { ${behindGetters.map((member) => JSON.stringify(member)).join(', ')} } from ${JSON.stringify(name)};`]
      : []),
  ].join('\n');
};

/**
 * A CommonJS module of the built-in's members behind getters, each a getter again: an import of one is
 * read where it is used. Only these few are copied into the namespace esbuild makes of it at init.
 */
const gettersOf = (name: string): string =>
  [
    `const builtin = process.getBuiltinModule(${JSON.stringify(specifierOf(name))});`,
    'module.exports = {',
    ...membersOf(name).behindGetters.map(
      (member) => `  get ${JSON.stringify(member)}() { return builtin[${JSON.stringify(member)}]; },`,
    ),
    '};',
  ].join('\n');

export const builtinsFromProcess: Plugin = {
  name: 'builtins-from-process',
  setup(build) {
    build.onResolve({ filter: /^(node:)?[a-z_]+(\/[a-z_]+)?$/ }, ({ path, kind, namespace }) => {
      const name = builtinOf(path);
      if (!name) return undefined;
      // Unused, the getters' module is dropped whole: reading it has no side effects.
      if (namespace === MODULE_NAMESPACE) return { path: name, namespace: GETTERS_NAMESPACE, sideEffects: false };
      const whole = kind === 'require-call' || kind === 'dynamic-import' || WHOLE_MODULE_IMPORTERS.has(namespace);
      return { path: name, namespace: whole ? NAMESPACE : MODULE_NAMESPACE };
    });
    build.onLoad({ filter: /.*/, namespace: GETTERS_NAMESPACE }, ({ path }) => ({
      contents: gettersOf(path),
      loader: 'js',
    }));
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, ({ path }) => ({
      contents: `module.exports = process.getBuiltinModule(${JSON.stringify(specifierOf(path))});`,
      loader: 'js',
    }));
    build.onLoad({ filter: /.*/, namespace: MODULE_NAMESPACE }, ({ path }) => ({
      contents: builtinAsModule(path),
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
