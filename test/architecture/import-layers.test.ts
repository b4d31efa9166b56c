import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/**
 * The layers of functions/, top to bottom (docs/architecture.md explains each). A file may import
 * from its own layer and the layers below it, never from one above; no files import each other in a
 * circle. Every file must sit in a layer, so a new folder has to be placed here before it is used.
 */
const layers: readonly { readonly name: string; readonly paths: readonly string[] }[] = [
  {
    name: 'handlers',
    paths: [
      'admin/',
      'audio/',
      'chat/',
      'console/',
      'embeddings/',
      'fallback/',
      'images/',
      'models/',
      'usage-writer/',
      'shared/routes.ts',
    ],
  },
  { name: 'config', paths: ['shared/config/'] },
  { name: 'middleware', paths: ['shared/middleware/', 'shared/streaming/'] },
  { name: 'routing', paths: ['shared/routing/'] },
  { name: 'catalog', paths: ['shared/catalog/'] },
  { name: 'providers', paths: ['shared/providers/'] },
  { name: 'protocols', paths: ['shared/protocols/', 'shared/schemas/'] },
  { name: 'observability', paths: ['shared/observability/'] },
  { name: 'upstream', paths: ['shared/upstream/'] },
  { name: 'accounting', paths: ['shared/accounting/'] },
  { name: 'identity', paths: ['shared/audit/', 'shared/auth/', 'shared/console/', 'shared/secrets/'] },
  { name: 'store', paths: ['shared/store/', 'shared/aws/'] },
  {
    name: 'foundation',
    paths: [
      'shared/http/',
      'shared/security/',
      'shared/errors.ts',
      'shared/log.ts',
      'shared/log-format.ts',
      'shared/metrics-namespace.ts',
      'shared/promise-of.ts',
      'shared/version.ts',
    ],
  },
];

/**
 * Folders whose subfolders stand alone: a client protocol or a provider type is one folder that
 * imports no sibling. The exception is the gateway's internal chat form, which is OpenAI's chat
 * format: every protocol translates to and from it.
 */
const selfContained: readonly { readonly parent: string; readonly shared: readonly string[] }[] = [
  { parent: 'shared/protocols/', shared: ['shared/protocols/openai-chat/'] },
  { parent: 'shared/providers/', shared: [] },
];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../functions');

const sourceFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });

/** Paths relative to functions/, with forward slashes. */
const files = sourceFiles(root).map((path) => relative(root, path).split(sep).join('/'));

/** Each file's relative imports (static, dynamic and re-exports), as paths relative to functions/. */
const allImports = new Map<string, string[]>(
  files.map((file) => {
    const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets = info.importedFiles
      .map((reference) => reference.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) =>
        relative(root, resolve(root, dirname(file), name))
          .split(sep)
          .join('/')
          .replace(/\.js$/, '.ts'),
      );
    return [file, targets];
  }),
);

/** Code imports; JSON documents (the OpenAPI document) are data, checked only to exist. */
const imports = new Map(
  [...allImports].map(([file, targets]) => [file, targets.filter((target) => !target.endsWith('.json'))]),
);
const dataImports = [...allImports].flatMap(([file, targets]) =>
  targets.filter((target) => target.endsWith('.json')).map((target) => ({ file, target })),
);

const layerOf = (file: string): number =>
  layers.findIndex((layer) => layer.paths.some((path) => file.startsWith(path)));

const subfolderOf = (file: string, parent: string): string | undefined => {
  if (!file.startsWith(parent)) return undefined;
  const rest = file.slice(parent.length);
  return rest.includes('/') ? `${parent}${rest.slice(0, rest.indexOf('/'))}/` : undefined;
};

describe('imports under functions/', () => {
  it('are read from every source file', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(imports.get('shared/routes.ts')?.length).toBeGreaterThan(0);
  });

  it('reach only files that exist', () => {
    const known = new Set(files);
    const missing = [...imports].flatMap(([file, targets]) =>
      targets.filter((target) => !known.has(target)).map((target) => `${file} → ${target}`),
    );
    expect(missing).toEqual([]);
  });

  it('read only JSON documents that exist', () => {
    const missing = dataImports.filter(({ target }) => !existsSync(join(root, target)));
    expect(missing).toEqual([]);
  });

  it('come from files that each sit in one layer', () => {
    expect(files.filter((file) => layerOf(file) === -1)).toEqual([]);
  });

  it('never point up a layer', () => {
    const upward = [...imports].flatMap(([file, targets]) =>
      targets
        .filter((target) => layerOf(target) < layerOf(file))
        .map((target) => `${file} (${layers[layerOf(file)]!.name}) → ${target} (${layers[layerOf(target)]!.name})`),
    );
    expect(upward).toEqual([]);
  });

  it('never cross from one protocol or provider folder into a sibling', () => {
    const crossings = [...imports].flatMap(([file, targets]) =>
      selfContained.flatMap(({ parent, shared }) => {
        const own = subfolderOf(file, parent);
        if (own === undefined) return [];
        return targets
          .filter((target) => {
            const other = subfolderOf(target, parent);
            return other !== undefined && other !== own && !shared.includes(other);
          })
          .map((target) => `${file} → ${target}`);
      }),
    );
    expect(crossings).toEqual([]);
  });

  it('form no cycle', () => {
    // Tarjan's strongly connected components: any component of more than one file is a cycle.
    const index = new Map<string, number>();
    const lowLink = new Map<string, number>();
    const onStack = new Set<string>();
    const stack: string[] = [];
    const cycles: string[][] = [];
    let counter = 0;
    const visit = (file: string): void => {
      index.set(file, counter);
      lowLink.set(file, counter);
      counter += 1;
      stack.push(file);
      onStack.add(file);
      for (const target of imports.get(file) ?? []) {
        if (!index.has(target)) {
          visit(target);
          lowLink.set(file, Math.min(lowLink.get(file)!, lowLink.get(target)!));
        } else if (onStack.has(target)) {
          lowLink.set(file, Math.min(lowLink.get(file)!, index.get(target)!));
        }
      }
      if (lowLink.get(file) !== index.get(file)) return;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1 || (imports.get(file) ?? []).includes(file)) cycles.push(component.sort());
    };
    for (const file of files) if (!index.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});
