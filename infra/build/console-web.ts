/**
 * Builds the console (`console/`): one minified script and one stylesheet named by content hash, and
 * the page that loads them. The local runtime builds it in memory at start; the stack's bundling of
 * the console function writes it beside the bundle (`tsx infra/build/console-web.ts <dir>`).
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { projectRoot } from './esbuild-options.js';

const sourceDirectory = path.join(projectRoot, 'console');

const hashed = (name: string, extension: string, content: string): string =>
  `${name}-${createHash('sha256').update(content).digest('hex').slice(0, 12)}${extension}`;

/** Every file of the built console, by file name. */
export const buildConsoleWeb = async (): Promise<Map<string, string>> => {
  const result = await build({
    entryPoints: [path.join(sourceDirectory, 'src', 'main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'warning',
  });
  const script = result.outputFiles[0]!.text;
  const stylesheet = await readFile(path.join(sourceDirectory, 'console.css'), 'utf8');
  const scriptName = hashed('app', '.js', script);
  const stylesheetName = hashed('app', '.css', stylesheet);
  // Relative references: the page is served at `<base>/console/`, whatever the stage prefix.
  const page = (await readFile(path.join(sourceDirectory, 'index.html'), 'utf8'))
    .replace('%SCRIPT%', `./${scriptName}`)
    .replace('%STYLESHEET%', `./${stylesheetName}`);
  return new Map([
    ['index.html', page],
    [scriptName, script],
    [stylesheetName, stylesheet],
  ]);
};

/** Writes a built console's files into a folder, made if missing. */
export const writeConsoleFiles = async (directory: string, files: ReadonlyMap<string, string>): Promise<void> => {
  await mkdir(directory, { recursive: true });
  await Promise.all([...files].map(([name, content]) => writeFile(path.join(directory, name), content)));
};

/** Writes the built console into a folder. */
export const writeConsoleWeb = async (directory: string): Promise<string[]> => {
  const files = await buildConsoleWeb();
  await writeConsoleFiles(directory, files);
  return [...files.keys()];
};

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const directory = process.argv[2];
  if (!directory) throw new Error('usage: tsx infra/build/console-web.ts <output directory>');
  writeConsoleWeb(directory).catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
