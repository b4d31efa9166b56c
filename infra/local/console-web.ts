import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildConsoleWeb, writeConsoleFiles } from '../build/console-web.js';
import { projectRoot } from '../build/esbuild-options.js';

/** Where built consoles are kept: the project's own cache folder, which only its owner writes to. */
const consoleCache = path.join(projectRoot, 'node_modules', '.cache', 'model-gateway');

/** True when `directory` already holds exactly these files (a build of the same sources). */
const holds = async (directory: string, files: Map<string, string>): Promise<boolean> => {
  try {
    for (const [name, content] of files)
      if ((await readFile(path.join(directory, name), 'utf8')) !== content) return false;
    return true;
  } catch {
    return false;
  }
};

/**
 * Writes a build into the folder named by its content, once: written beside it and renamed into place,
 * so that processes starting together (test workers) never read a half-written folder, and the loser
 * of a race keeps the winner's identical files.
 */
export const keepConsoleBuild = async (files: Map<string, string>, cacheDirectory = consoleCache): Promise<string> => {
  const digest = createHash('sha256');
  for (const [name, content] of files) digest.update(name).update('\0').update(content).update('\0');
  const directory = path.join(cacheDirectory, `console-${digest.digest('hex').slice(0, 16)}`);
  if (await holds(directory, files)) return directory;
  await mkdir(cacheDirectory, { recursive: true });
  const staging = await mkdtemp(path.join(cacheDirectory, 'staging-'));
  await writeConsoleFiles(staging, files);
  try {
    await rename(staging, directory);
    return directory;
  } catch {
    // Taken meanwhile by another process's identical build, or by something else: then this
    // process serves its own copy, and leaves the other alone (a gateway may be serving from it).
    if (!(await holds(directory, files))) return staging;
    await rm(staging, { recursive: true, force: true });
    return directory;
  }
};

/**
 * Where the project's folder cannot be written (an install owned by another user, a read-only file
 * system): a temporary folder of this process, removed when it exits.
 */
const temporaryConsoleFolder = async (files: Map<string, string>): Promise<string> => {
  const directory = await mkdtemp(path.join(tmpdir(), 'model-gateway-console-'));
  process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
  await writeConsoleFiles(directory, files);
  return directory;
};

/** The folder a build is served from: the project's cache, or failing that a temporary folder. */
export const consoleFolderFor = (files: Map<string, string>, cacheDirectory = consoleCache): Promise<string> =>
  keepConsoleBuild(files, cacheDirectory).catch(() => temporaryConsoleFolder(files));

let prepared: Promise<string> | undefined;

/**
 * Readies the console for the local runtime: builds the page into a folder that the console function
 * serves from (as it serves `web/` beside its bundle on Lambda), and turns on local sign-in (admin key,
 * or a member's password), whose sessions live in this process. Built once per process, so every
 * gateway started in it (tests start several) shares the folder. The folder is named by the build's
 * content and kept in the project's cache, so runs of the same sources share it and a process that is
 * killed leaves nothing new behind.
 */
export const prepareLocalConsole = (): Promise<string> => {
  prepared ??= buildConsoleWeb().then((files) => consoleFolderFor(files));
  return prepared.then((directory) => {
    process.env.GATEWAY_CONSOLE_WEB_DIR = directory;
    process.env.GATEWAY_CONSOLE_AUTH = 'local';
    return directory;
  });
};
