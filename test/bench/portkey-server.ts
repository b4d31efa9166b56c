import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Portkey's open-source gateway, for comparison in the same run. Installed into `.bench/portkey`
 * (never into the project's own dependencies) on first use; `undefined` with a reason when it cannot be.
 */
export interface PortkeyServer {
  readonly url: string;
  readonly process: ChildProcess;
}

const folder = join(process.cwd(), '.bench', 'portkey');
const entry = join(folder, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');

export const startPortkey = async (port: number): Promise<PortkeyServer | string> => {
  if (process.env.BENCH_PORTKEY === 'off') return 'skipped (BENCH_PORTKEY=off)';
  if (!existsSync(entry)) {
    mkdirSync(folder, { recursive: true });
    const installed = spawnSync(
      'npm',
      ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', folder, '@portkey-ai/gateway'],
      { stdio: 'ignore', timeout: 300_000 },
    );
    if (installed.status !== 0 || !existsSync(entry))
      return 'skipped: @portkey-ai/gateway could not be installed (registry unreachable?)';
  }
  const child = spawn(process.execPath, [entry, `--port=${port}`, '--headless'], {
    cwd: folder,
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    try {
      await fetch(`${url}/`);
      return { url, process: child };
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  child.kill();
  return 'skipped: Portkey did not start within 20 s';
};
