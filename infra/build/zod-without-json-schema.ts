/**
 * An esbuild plugin for the Lambda bundles: zod's JSON Schema output (`toJSONSchema`, Standard
 * Schema's `jsonSchema`) left out, about 17 KB of each bundle that validates with zod. zod's classic
 * schemas reach it from every constructor, so tree shaking cannot drop it; the gateway never asks a
 * schema for its JSON Schema (`test/infra/bundle.test.ts` holds the sources to that). Each export of
 * the two modules is kept by name, so that a bundle importing one still builds, and throws if called.
 */
import { readFile } from 'node:fs/promises';
import type { Plugin } from 'esbuild';

const NAMESPACE = 'zod-without-json-schema';
const MODULES = /[\\/]zod[\\/]v4[\\/]core[\\/](json-schema-processors|to-json-schema)\.js$/;
/** Makers of a schema's JSON Schema method: called when the method is created, so they return the thrower. */
const METHOD_MAKERS = new Set(['createToJSONSchemaMethod', 'createStandardJSONSchemaMethod']);

/** The names a module exports: `export const|function|class name` and `export { a, b as c }`. */
const exportedNames = (source: string): string[] => {
  const names = new Set<string>();
  for (const [, name] of source.matchAll(
    /export\s+(?:const|let|var|async\s+function\*?|function\*?|class)\s+([\w$]+)/g,
  ))
    names.add(name!);
  for (const [, list] of source.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const entry of list!.split(',')) {
      const name = entry
        .trim()
        .split(/\s+as\s+/)
        .at(-1);
      if (name) names.add(name);
    }
  }
  return [...names];
};

const standIn = (names: readonly string[]): string =>
  [
    'const leftOut = (name) => () => {',
    "  throw new Error(`zod's JSON Schema output (${name}) is not in the Lambda bundles`);",
    '};',
    ...names.map((name) =>
      METHOD_MAKERS.has(name)
        ? `export const ${name} = () => leftOut(${JSON.stringify(name)});`
        : `export const ${name} = leftOut(${JSON.stringify(name)});`,
    ),
  ].join('\n');

export const zodWithoutJsonSchema: Plugin = {
  name: 'zod-without-json-schema',
  setup(build) {
    build.onResolve({ filter: /(json-schema-processors|to-json-schema)\.js$/ }, async (args) => {
      if (args.namespace === NAMESPACE) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        namespace: NAMESPACE,
      });
      if (resolved.errors.length > 0 || !MODULES.test(resolved.path)) return undefined;
      return { path: resolved.path, namespace: NAMESPACE };
    });
    build.onLoad({ filter: /.*/, namespace: NAMESPACE }, async ({ path }) => ({
      contents: standIn(exportedNames(await readFile(path, 'utf8'))),
      loader: 'js',
    }));
  },
};
