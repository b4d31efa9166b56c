import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gatewayConfigSchema } from '../../functions/shared/config/gateway-config-schema.js';
import * as z from '../../functions/shared/schemas/zod.js';
import { withSettingsTable } from '../../infra/docs/configuration-doc.js';
import { stackSettings } from '../../infra/stack-settings.js';

const reference = readFileSync('docs/configuration.md', 'utf8');

/** Whether the reference names a setting as code: `NAME`, or inside a code span such as `-c name`. */
const documented = (name: string): boolean =>
  new RegExp(`\`[^\`\\n]*\\b${name.replace(/[[\].]/g, '\\$&')}\\b[^\`\\n]*\``).test(reference);

const sourceFiles = (folder: string): string[] =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });

/** The product's code: what runs deployed, locally or as the CLI (the CI fixtures stack is a test's). */
const productFiles = ['functions', 'infra', 'cli', 'bin']
  .flatMap(sourceFiles)
  .filter((file) => !file.startsWith(join('infra', 'fixtures')));

/**
 * Every environment variable the code reads: `process.env.NAME`, `process.env['NAME']`, and names
 * the code keeps in constants or passes to a reader (every name of the gateway's own prefixes).
 */
const environmentVariables = (): Map<string, string> => {
  const found = new Map<string, string>();
  const patterns = [
    /process\.env\.([A-Za-z_][A-Za-z0-9_]*)/g,
    /process\.env\[\s*['"]([A-Za-z_][A-Za-z0-9_]*)['"]\s*\]/g,
    /['"`]((?:GATEWAY|UPSTREAM|DYNAMODB|SECRETS_MANAGER|SNS)_[A-Z0-9_]+)['"`]/g,
  ];
  for (const file of productFiles) {
    const text = readFileSync(file, 'utf8');
    for (const pattern of patterns)
      for (const [, name] of text.matchAll(pattern)) if (!found.has(name!)) found.set(name!, file);
  }
  return found;
};

/** Context keys read outside the stack's settings table (the CI setup app reads its own). */
const otherContextKeys = (): Map<string, string> => {
  const found = new Map<string, string>();
  for (const file of productFiles.filter((path) => path !== join('infra', 'stack-settings.ts'))) {
    for (const [, name] of readFileSync(file, 'utf8').matchAll(/tryGetContext\(\s*['"]([A-Za-z0-9_-]+)['"]/g)) {
      if (!found.has(name!)) found.set(name!, file);
    }
  }
  return found;
};

/** Every field path of the config file, from its schema: `channels[].modelMap`, `accounts[].budget.period`. */
const configFields = (): string[] => {
  const paths = new Set<string>();
  const walk = (node: unknown, path: string): void => {
    if (!node || typeof node !== 'object') return;
    const schema = node as Record<string, unknown>;
    for (const key of ['anyOf', 'oneOf', 'allOf']) {
      if (Array.isArray(schema[key])) for (const part of schema[key]) walk(part, path);
    }
    if (schema.items) walk(schema.items, `${path}[]`);
    for (const [name, child] of Object.entries((schema.properties as Record<string, unknown> | undefined) ?? {})) {
      const fieldPath = path ? `${path}.${name}` : name;
      paths.add(fieldPath);
      walk(child, fieldPath);
    }
  };
  walk(z.toJSONSchema(gatewayConfigSchema(), { io: 'input', unrepresentable: 'any' }), '');
  return [...paths];
};

/** Variables the platform sets (Lambda, the shell); the reference names them together, not one by one. */
const setByPlatform = (name: string): boolean => name.startsWith('AWS_') || name === 'PATH';

describe('docs/configuration.md', () => {
  it('finds the variables the code reads, so that the scan itself can be trusted', () => {
    const names = [...environmentVariables().keys()];
    expect(names).toEqual(
      expect.arrayContaining(['GATEWAY_LOG_LEVEL', 'GATEWAY_TABLE_KEYS', 'UPSTREAM_SECRET_PREFIX', 'PORT']),
    );
  });

  it('lists every environment variable the code reads', () => {
    const missing = [...environmentVariables()]
      .filter(([name]) => !setByPlatform(name) && !documented(name))
      .map(([name, file]) => `${name} (read in ${file})`);
    expect(missing).toEqual([]);
  });

  it('lists every -c setting of the stack, as the stack describes it (run `npm run docs:settings`)', () => {
    expect(Object.keys(stackSettings).length).toBeGreaterThan(10);
    expect(reference).toBe(withSettingsTable(reference));
  });

  it('lists every context key read outside the settings table', () => {
    const missing = [...otherContextKeys()]
      .filter(([name]) => !documented(name))
      .map(([name, file]) => `${name} (${file})`);
    expect(missing).toEqual([]);
  });

  it('lists every field of the config file', () => {
    const fields = configFields();
    expect(fields).toEqual(expect.arrayContaining(['channels[].baseUrl', 'accounts[].keys[].key']));
    expect(fields.filter((field) => !documented(field))).toEqual([]);
  });
});
