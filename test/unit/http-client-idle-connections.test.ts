import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ConnectionPool } from '../../functions/shared/http/client/connection-pool.js';
import { exchangeWithin } from '../../functions/shared/http/client/exchange-within.js';
import { bodyText } from '../../functions/shared/http/client/response-body.js';
import { targetOf } from '../../functions/shared/http/client/url-target.js';

/**
 * What the client does with a connection between requests: it keeps it no longer than the server's
 * `Keep-Alive: timeout` says (less a margin, as Node's client does), and an idle one keeps no process
 * alive. Real servers on 127.0.0.1; every wait is on an event.
 */

interface Server {
  readonly url: string;
  /** TCP connections accepted so far. */
  connections: number;
  close(): Promise<void>;
}

const startServer = async (keepAlive: string | undefined): Promise<Server> => {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain', ...(keepAlive ? { 'keep-alive': keepAlive } : {}) });
    response.end('ok');
  });
  // The server never closes an idle connection itself: only the client decides.
  server.keepAliveTimeout = 0;
  const state: Server = {
    url: '',
    connections: 0,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  server.on('connection', () => (state.connections += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  (state as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  return state;
};

const get = async (pool: ConnectionPool, url: string): Promise<string> => {
  const { origin, host, path: target } = targetOf(url);
  const response = await exchangeWithin(
    { pool, origin, method: 'GET', target, host, headers: {} },
    5_000,
    () => new Error('no answer'),
  );
  return bodyText(response.body);
};

describe('a kept-alive connection', () => {
  test.each([
    ['timeout=1', 2],
    ['timeout=0', 2],
    ['max=100, timeout=1', 2],
    ['timeout=30, max=100', 1],
    [undefined, 1],
  ])(
    'after a response with Keep-Alive: %s, the next request takes %i connection(s) in all',
    async (keepAlive, count) => {
      const server = await startServer(keepAlive);
      const pool = new ConnectionPool();
      try {
        expect(await get(pool, server.url)).toBe('ok');
        expect(await get(pool, server.url)).toBe('ok');
        expect(server.connections).toBe(count);
      } finally {
        pool.closeIdle();
        await server.close();
      }
    },
  );
});

describe('an idle connection', () => {
  // A client that kept its process alive would never exit: it is stopped once the test is over.
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child?.exitCode === null) child.kill();
  });

  test('keeps no process alive: a program that is done exits while its connection stays open', async () => {
    const server = await startServer(undefined);
    const directory = await mkdtemp(path.join(os.tmpdir(), 'idle-connection-'));
    const script = path.join(directory, 'request.mts');
    const client = path.resolve('functions/shared/http/client');
    await writeFile(
      script,
      `import { ConnectionPool } from ${JSON.stringify(`${client}/connection-pool.ts`)};
import { exchangeWithin } from ${JSON.stringify(`${client}/exchange-within.ts`)};
import { bodyText } from ${JSON.stringify(`${client}/response-body.ts`)};
import { targetOf } from ${JSON.stringify(`${client}/url-target.ts`)};
const { origin, host, path } = targetOf(process.argv[2]);
const response = await exchangeWithin({ pool: new ConnectionPool(), origin, method: 'GET', target: path, host, headers: {} }, 5000, () => new Error('no answer'));
process.stdout.write(await bodyText(response.body));
`,
    );
    try {
      child = spawn(path.resolve('node_modules/.bin/tsx'), [script, server.url], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const [code] = (await once(child, 'exit')) as [number];
      expect({ code, output }).toEqual({ code: 0, output: 'ok' });
      expect(server.connections).toBe(1);
    } finally {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    }
  }, 20_000);
});
