import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import {
  freePort,
  gatewayProcesses,
  isRunning,
  startGatewayCommand,
  type GatewayCommand,
} from '../support/gateway-command.js';

/** Each case starts `npm start` at least once: minutes on a loaded machine, seconds on a quiet one. */
const TIMEOUT_MS = 120_000;

const adminKey = generateApiKey().key;
const folders: string[] = [];
const commands: GatewayCommand[] = [];

afterAll(() => {
  for (const command of commands) {
    if (command.child.exitCode === null && command.child.signalCode === null) process.kill(-command.pid, 'SIGKILL');
  }
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const newDataDir = () => {
  const folder = mkdtempSync(join(tmpdir(), 'gateway-refusals-'));
  folders.push(folder);
  return folder;
};

const start = (dataDir: string, port: number) => {
  const command = startGatewayCommand({ GATEWAY_DATA_DIR: dataDir, PORT: String(port), GATEWAY_ADMIN_KEY: adminKey });
  commands.push(command);
  return command;
};

/** What the gateway itself wrote on stderr (npm's own warnings about the machine's npm config left out). */
const gatewayErrorLines = (command: GatewayCommand) =>
  command
    .stderr()
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('npm warn'));

const stop = async (command: GatewayCommand) => {
  process.kill(command.pid, 'SIGTERM');
  return command.exited;
};

describe('start-up refusals', () => {
  test(
    'a second start on a data dir in use says so in one line and exits non-zero, and the first keeps serving',
    async () => {
      const dataDir = newDataDir();
      const first = start(dataDir, await freePort());
      const ready = await first.line(/listening on http/);
      const base = /(http:\/\/\S+)/.exec(ready)![1]!;

      const second = start(dataDir, await freePort());
      const exit = await second.exited;

      expect(exit.code).not.toBe(0);
      const lines = gatewayErrorLines(second);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/data dir .* is in use by another model-gateway \(pid \d+\)/);
      expect((await fetch(`${base}/health`)).status).toBe(200);
      expect(await stop(first)).toEqual({ code: 0, signal: null });
    },
    TIMEOUT_MS,
  );

  test(
    'a port in use is one clear line and a non-zero exit, and leaves the data dir free',
    async () => {
      const dataDir = newDataDir();
      const taken: Server = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
      const port = (taken.address() as { port: number }).port;
      try {
        const refused = start(dataDir, port);
        const exit = await refused.exited;
        expect(exit.code).not.toBe(0);
        const lines = gatewayErrorLines(refused);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already in use`));
      } finally {
        await new Promise<void>((resolve) => taken.close(() => resolve()));
      }

      // The refused start released the data dir and stopped its store: the next start gets both.
      const next = start(dataDir, await freePort());
      await next.line(/listening on http/);
      expect(await stop(next)).toEqual({ code: 0, signal: null });
    },
    TIMEOUT_MS,
  );

  test.each<NodeJS.Signals>(['SIGKILL', 'SIGTERM'])(
    'a store stopped by %s is one clear line, and /health answers 503 in the JSON envelope',
    async (signal) => {
      const command = start(newDataDir(), await freePort());
      const ready = await command.line(/listening on http/);
      const base = /(http:\/\/\S+)/.exec(ready)![1]!;
      expect((await fetch(`${base}/health`)).status).toBe(200);
      const { store } = gatewayProcesses(command);

      process.kill(store, signal);
      await command.line(/embedded store .* (was stopped|exited)/, 'stderr');

      const health = await fetch(`${base}/health`);
      expect(health.status).toBe(503);
      expect(health.headers.get('content-type')).toContain('application/json');
      expect(health.headers.get('x-request-id')).toBeTruthy();
      expect(await health.json()).toMatchObject({ error: { code: 'store_unavailable', type: 'server_error' } });
      expect(gatewayErrorLines(command)).toHaveLength(1);
      expect(isRunning(store)).toBe(false);
      expect(await stop(command)).toEqual({ code: 0, signal: null });
    },
    TIMEOUT_MS,
  );
});
