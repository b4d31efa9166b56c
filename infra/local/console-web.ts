import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeConsoleWeb } from '../build/console-web.js';

let prepared: Promise<string> | undefined;

/**
 * Readies the console for the local runtime: builds the page into a temporary folder that the console
 * function serves from (as it serves `web/` beside its bundle on Lambda), and turns on local sign-in
 * (admin key, or a member's password), whose sessions live in this process. Built once per process,
 * so every gateway started in it (tests start several) shares the folder; removed when the process exits.
 */
export const prepareLocalConsole = (): Promise<string> => {
  prepared ??= (async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'model-gateway-console-'));
    process.once('exit', () => rmSync(directory, { recursive: true, force: true }));
    await writeConsoleWeb(directory);
    return directory;
  })();
  return prepared.then((directory) => {
    process.env.GATEWAY_CONSOLE_WEB_DIR = directory;
    process.env.GATEWAY_CONSOLE_AUTH = 'local';
    return directory;
  });
};
