import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminKeyBox } from '../../infra/local/admin-key-box.js';
import { describeInProcess } from '../support/gateway-target.js';
import { freePort, startGatewayCommand, type GatewayCommand } from '../support/gateway-command.js';
import { invocationEnd } from '../support/invocation-ends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * What `npm start` shows a person: the admin key last and framed, one short line per request in a
 * terminal (JSON elsewhere), no line for health probes, and one line when the demo channel retires.
 */

/** Everything the process writes to stdout and stderr while `run` runs, printed nowhere. */
const writtenDuring = async (run: () => Promise<void>): Promise<string[]> => {
  const written: string[] = [];
  const originals = { stdout: process.stdout.write, stderr: process.stderr.write };
  const capture = function write(chunk: unknown): boolean {
    written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    return true;
  } as typeof process.stdout.write;
  process.stdout.write = capture;
  process.stderr.write = capture;
  try {
    await run();
  } finally {
    process.stdout.write = originals.stdout;
    process.stderr.write = originals.stderr;
  }
  return written.join('').split('\n').filter(Boolean);
};

const withEnvironment = async (values: Record<string, string | undefined>, run: () => Promise<void>) => {
  const previous = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  const set = (entries: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(entries)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  set(values);
  try {
    await run();
  } finally {
    set(previous);
  }
};

describeInProcess('it reads the lines this process writes')('first run', () => {
  let gateway: TestGateway;
  let key: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    ({ key } = await gateway.createAccountWithKey());
  });
  afterAll(() => gateway?.close());

  const chat = () =>
    gateway.request('POST', '/v1/chat/completions', {
      key,
      body: { model: 'demo-1', messages: [{ role: 'user', content: 'hello' }] },
    });

  /** A request and a health probe, and the lines they wrote once both have ended. */
  const linesOfRequests = async (): Promise<string[]> =>
    writtenDuring(async () => {
      expect((await gateway.request('GET', '/health')).status).toBe(200);
      const answer = await chat();
      expect(answer.status).toBe(200);
      await invocationEnd(answer.headers.get('x-request-id')!);
    });

  test('in text format, a request writes one short line and a health probe none', async () => {
    let lines: string[] = [];
    await withEnvironment({ GATEWAY_LOG_FORMAT: 'text', GATEWAY_LOG_LEVEL: 'info' }, async () => {
      lines = await linesOfRequests();
    });
    const requestLines = lines.filter((line) => line.includes('/v1/chat/completions'));
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatch(
      /^\d\d:\d\d:\d\d POST \/v1\/chat\/completions 200 demo-1 \d+ tokens (\$[\d.]+ )?\d+ ms$/,
    );
    expect(requestLines[0]!.length).toBeLessThan(120);
    expect(lines.some((line) => line.includes('/health'))).toBe(false);
    expect(lines.some((line) => line.startsWith('{'))).toBe(false);
  });

  test('without GATEWAY_LOG_FORMAT, every request is one JSON line, as deployed', async () => {
    let lines: string[] = [];
    await withEnvironment({ GATEWAY_LOG_FORMAT: undefined, GATEWAY_LOG_LEVEL: 'info' }, async () => {
      lines = await linesOfRequests();
    });
    const requests = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(requests.map((line) => line.path).sort()).toEqual(['/health', '/v1/chat/completions']);
    expect(requests.every((line) => line.message === 'request')).toBe(true);
  });

  test('the first other channel retires the demo channel with one line; the next says nothing', async () => {
    let lines: string[] = [];
    await withEnvironment({ GATEWAY_LOG_FORMAT: 'text', GATEWAY_LOG_LEVEL: 'info' }, async () => {
      lines = await writtenDuring(async () => {
        for (const id of ['first-real', 'second-real']) {
          const put = await gateway.admin('PUT', `/admin/v1/channels/${id}`, {
            type: 'openai',
            baseUrl: 'https://api.openai.com/v1',
            models: [`${id}-model`],
          });
          expect(put.status).toBe(200);
        }
      });
    });
    const retired = lines.filter((line) => line.includes('demo channel is retired'));
    expect(retired).toHaveLength(1);
    expect(retired[0]).toContain("'first-real'");
    expect((await chat()).status).toBe(404);
  });
});

describe('npm start on an empty data dir', () => {
  let command: GatewayCommand | undefined;
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-first-run-'));

  afterAll(async () => {
    if (command && command.child.exitCode === null && command.child.signalCode === null) {
      process.kill(command.pid, 'SIGTERM');
      await command.exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('prints the admin key last, framed, after the listening line', async () => {
    command = startGatewayCommand({ GATEWAY_DATA_DIR: dataDir, PORT: String(await freePort()), GATEWAY_ADMIN_KEY: '' });
    await command.line(/^\+-+\+$/);
    // The frame's closing rule is the last line of the start.
    await command.line(/Sign in to the console/);
    const lines = command
      .stdout()
      .split('\n')
      .filter((line) => !line.startsWith('>') && line.trim() !== '');
    const listening = lines.findIndex((line) => /listening on http/.test(line));
    const keyLine = lines.findIndex((line) => /^\|\s+sk-[A-Za-z0-9]{20,}\s+\|$/.test(line));
    expect(listening).toBeGreaterThanOrEqual(0);
    expect(keyLine).toBeGreaterThan(listening);
    const key = /sk-[A-Za-z0-9]+/.exec(lines[keyLine]!)![0];
    expect(lines.slice(keyLine - 3, keyLine + 4).join('\n') + '\n').toBe(adminKeyBox(key));
  });
});
