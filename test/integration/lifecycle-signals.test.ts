import { connect } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { startLocalGateway } from '../../infra/local/local-gateway.js';
import { parseRawAnswer } from '../support/raw-http.js';
import { startFakeUpstream, type FakeUpstream, type WireRoute } from '../support/fake-upstream/fake-upstream.js';
import {
  freePort,
  gatewayProcesses,
  isRunning,
  startGatewayCommand,
  stopsWithin,
  type GatewayCommand,
} from '../support/gateway-command.js';

/** Each case starts `npm start` and the gateway again: minutes on a loaded machine, seconds on a quiet one. */
const TIMEOUT_MS = 120_000;
/** How long an exiting process may take to end after closing its files, on a loaded machine. */
const EXIT_AFTER_PIPES_MS = 5000;

const adminKey = generateApiKey().key;
const folders: string[] = [];
const commands: GatewayCommand[] = [];
let upstream: FakeUpstream;
/** Lets the held stream finish; replaced for every request the fake receives. */
let releaseStream: () => void = () => undefined;
let streamHeld: Promise<void> = Promise.resolve();

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1, model: 'slow-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** A streamed answer that sends its first event, then waits for the test before it sends the rest. */
const heldStream: WireRoute = async ({ response }) => {
  const released = streamHeld;
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  response.write(chunk({ role: 'assistant', content: 'first' }));
  await released;
  response.write(chunk({ content: ' second' }));
  response.write(chunk({}, 'stop'));
  response.write(
    `data: ${JSON.stringify({ id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1, model: 'slow-model', choices: [], usage: { prompt_tokens: 13, completion_tokens: 17, total_tokens: 30 } })}\n\n`,
  );
  response.end('data: [DONE]\n\n');
};

beforeAll(async () => {
  upstream = await startFakeUpstream({ 'POST /v1/chat/completions': heldStream });
});

afterAll(async () => {
  for (const command of commands) {
    if (command.child.exitCode === null && command.child.signalCode === null) process.kill(-command.pid, 'SIGKILL');
  }
  await upstream?.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const newDataDir = () => {
  const folder = mkdtempSync(join(tmpdir(), 'gateway-life-'));
  folders.push(folder);
  return folder;
};

const admin = async (base: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
};

/** `npm start` on a fresh data dir and a free port, ready, with a channel to the fake and a user key. */
const startServing = async () => {
  const dataDir = newDataDir();
  const port = await freePort();
  const command = startGatewayCommand({ GATEWAY_DATA_DIR: dataDir, PORT: String(port), GATEWAY_ADMIN_KEY: adminKey });
  commands.push(command);
  await command.line(/listening on http/);
  const base = `http://127.0.0.1:${port}`;
  await admin(base, 'PUT', '/admin/v1/channels/fake', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['slow-model'],
  });
  const account = await admin(base, 'POST', '/admin/v1/accounts', { name: 'lifecycle' });
  const key = await admin(base, 'POST', '/admin/v1/keys', { accountId: account.body.id });
  return { command, dataDir, base, accountId: account.body.id as string, key: key.body.key as string };
};

/** Starts a streamed chat request and returns once its first event has reached the client. */
const startHeldRequest = async (base: string, key: string) => {
  streamHeld = new Promise((resolve) => {
    releaseStream = resolve;
  });
  const response = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'slow-model',
      stream: true,
      messages: [{ role: 'user', content: 'take your time' }],
    }),
  });
  expect(response.status).toBe(200);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!text.includes('first')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before its first event: ${text}`);
    text += decoder.decode(value, { stream: true });
  }
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return text;
      text += decoder.decode(value, { stream: true });
    }
  })();
  return { rest };
};

/** The usage records of an account, read by a gateway started again on the same data dir. */
const recordsAfterRestart = async (dataDir: string, accountId: string) => {
  const restarted = await startLocalGateway({ port: 0, dataDir, adminKey });
  try {
    return (await admin(restarted.url, 'GET', `/admin/v1/usage?accountId=${accountId}`)).body.data as any[];
  } finally {
    await restarted.close();
  }
};

type Target = 'npm' | 'gateway' | 'process group';

describe('stopping npm start', () => {
  test.each<[NodeJS.Signals, Target]>([
    ['SIGTERM', 'npm'],
    ['SIGINT', 'npm'],
    ['SIGTERM', 'gateway'],
    ['SIGTERM', 'process group'],
    ['SIGINT', 'process group'],
  ])(
    '%s to the %s finishes the request in flight, records its usage, stops the store and exits 0',
    async (signal, target) => {
      const { command, dataDir, base, accountId, key } = await startServing();
      const processes = gatewayProcesses(command);
      const { rest } = await startHeldRequest(base, key);

      const receiver = target === 'npm' ? command.pid : target === 'gateway' ? processes.gateway : -command.pid;
      process.kill(receiver, signal);
      await command.line(/model-gateway stopping/);
      releaseStream();

      const body = await rest;
      expect(body).toContain(' second');
      expect(body).toContain('data: [DONE]');
      expect(await command.exited).toEqual({ code: 0, signal: null });
      // npm waits for the gateway, and the gateway for its store: neither is left behind.
      expect(isRunning(processes.gateway)).toBe(false);
      expect(isRunning(processes.store)).toBe(false);
      expect(command.stderr()).not.toMatch(/^\s+at /m);

      const records = await recordsAfterRestart(dataDir, accountId);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ status: 'success', stream: true, promptTokens: 13, completionTokens: 17 });
    },
    TIMEOUT_MS,
  );
});

describe('a parent that dies without cleaning up', () => {
  test(
    'npm killed outright: the gateway notices, finishes the request in flight, records it and stops its store',
    async () => {
      const { command, dataDir, base, accountId, key } = await startServing();
      const processes = gatewayProcesses(command);
      const { rest } = await startHeldRequest(base, key);

      process.kill(command.pid, 'SIGKILL');
      await command.line(/model-gateway stopping \(parent process exited\)/);
      releaseStream();

      expect(await rest).toContain('data: [DONE]');
      // The output pipes close only when every process holding them (gateway, store) is exiting; the
      // kernel closes a process's files before it ends, so its end follows a moment later.
      await command.exited;
      expect(await stopsWithin(processes.gateway, EXIT_AFTER_PIPES_MS)).toBe(true);
      expect(await stopsWithin(processes.store, EXIT_AFTER_PIPES_MS)).toBe(true);
      const records = await recordsAfterRestart(dataDir, accountId);
      expect(records).toMatchObject([{ status: 'success', stream: true }]);
    },
    TIMEOUT_MS,
  );

  test(
    'the gateway killed outright: its store does not outlive it',
    async () => {
      const { command } = await startServing();
      const processes = gatewayProcesses(command);

      process.kill(processes.gateway, 'SIGKILL');

      await command.exited;
      await expect(stopsWithin(processes.store, 10_000)).resolves.toBe(true);
    },
    TIMEOUT_MS,
  );
});

describe('a request that outlasts the drain time', () => {
  test(
    'is aborted when the drain time is up, recorded as aborted, and the store closes after its record',
    async () => {
      const dataDir = newDataDir();
      const gateway = await startLocalGateway({ port: 0, dataDir, adminKey, drainMs: 300 });
      await admin(gateway.url, 'PUT', '/admin/v1/channels/fake', {
        type: 'openai',
        baseUrl: upstream.baseUrl,
        models: ['slow-model'],
      });
      const account = await admin(gateway.url, 'POST', '/admin/v1/accounts', { name: 'drain' });
      const key = await admin(gateway.url, 'POST', '/admin/v1/keys', { accountId: account.body.id });
      // Held for good: nothing releases this stream.
      const { rest } = await startHeldRequest(gateway.url, key.body.key);

      await gateway.close();
      releaseStream();

      // The client's stream ends (cut short), rather than hanging.
      await expect(rest.catch(() => 'cut')).resolves.toBeDefined();
      const records = await recordsAfterRestart(dataDir, account.body.id);
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({ status: 'client_aborted', stream: true });
    },
    TIMEOUT_MS,
  );
});

describe('a request that arrives while the gateway drains', () => {
  test(
    "is refused with a 503 in its path's protocol, while the request being drained finishes whole",
    async () => {
      const gateway = await startLocalGateway({ port: 0, dataDir: newDataDir(), adminKey, drainMs: 60_000 });
      try {
        await admin(gateway.url, 'PUT', '/admin/v1/channels/fake', {
          type: 'openai',
          baseUrl: upstream.baseUrl,
          models: ['slow-model'],
        });
        const account = await admin(gateway.url, 'POST', '/admin/v1/accounts', { name: 'draining' });
        const key = (await admin(gateway.url, 'POST', '/admin/v1/keys', { accountId: account.body.id })).body.key;
        streamHeld = new Promise((resolve) => {
          releaseStream = resolve;
        });
        const { hostname, port } = new URL(gateway.url);
        const socket = connect(Number(port), hostname);
        let received = '';
        const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
        const seen = (text: string) =>
          new Promise<void>((resolve) => {
            const check = () => {
              if (!received.includes(text)) return;
              socket.off('data', check);
              resolve();
            };
            socket.on('data', check);
            check();
          });
        socket.on('data', (chunk: Buffer) => {
          received += chunk.toString('utf8');
        });
        const post = (path: string, body: object) => {
          const text = JSON.stringify(body);
          return (
            `POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\nauthorization: Bearer ${key}\r\n` +
            `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`
          );
        };
        // A stream under way on a kept-alive connection...
        socket.write(
          post('/v1/chat/completions', {
            model: 'slow-model',
            stream: true,
            messages: [{ role: 'user', content: 'take your time' }],
          }),
        );
        await seen('first');
        // ...when the gateway is told to stop; the client then sends its next request on that connection.
        const stopped = gateway.close();
        socket.write(
          post('/v1/messages', { model: 'slow-model', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
        );
        releaseStream();
        await closed;
        await stopped;

        const second = received.indexOf('HTTP/1.1 ', 1);
        expect(second).toBeGreaterThan(0);
        // The drained stream ended as streams end: its last event and the chunked body's terminator.
        expect(received.slice(0, second)).toContain('data: [DONE]\n\n');
        expect(received.slice(0, second)).toMatch(/\r\n0\r\n\r\n$/);
        const refusal = parseRawAnswer(received.slice(second));
        expect(refusal.status).toBe(503);
        expect(refusal.headers.connection).toBe('close');
        expect(refusal.headers['x-request-id']).toBeTruthy();
        // Anthropic's envelope, as /v1/messages clients read errors.
        expect(refusal.body).toMatchObject({
          type: 'error',
          error: { message: expect.stringContaining('shutting down') },
        });
        expect(JSON.stringify(refusal.body)).not.toContain(key);
      } finally {
        await gateway.close();
      }
    },
    TIMEOUT_MS,
  );
});
