import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { writeConsoleWeb } from '../build/console-web.js';

export interface LocalConsole {
  close(): Promise<void>;
}

/**
 * Readies the console for the local runtime: builds the page into a temporary folder that the console
 * function serves from (as it serves `web/` beside its bundle on Lambda), and turns on local sign-in
 * (admin key, or a member's password), whose sessions live in this process.
 */
export const prepareLocalConsole = async (): Promise<LocalConsole> => {
  const directory = await mkdtemp(path.join(tmpdir(), 'model-gateway-console-'));
  await writeConsoleWeb(directory);
  process.env.GATEWAY_CONSOLE_WEB_DIR = directory;
  process.env.GATEWAY_CONSOLE_AUTH = 'local';
  return { close: () => rm(directory, { recursive: true, force: true }) };
};
