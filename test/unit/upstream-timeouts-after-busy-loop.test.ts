import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenToBody, sendUpstream } from '../../functions/shared/upstream/upstream-http.js';

/**
 * An upstream timeout must measure the upstream's silence, not the gateway's: when the process is
 * busy for longer than the time allowed (a load peak, a long collection), the timeout's timer runs
 * before the loop reads what arrived meanwhile, and would fail a live upstream with a 504. Each case
 * keeps the loop busy in its check phase past the timeout, so that the next turn starts with the
 * timers, the timeout's overdue, before it reads its sockets.
 */
const TIMEOUT_MS = 200;

let server: Server;
/** The answer to the request the server holds, and whether it sends its head at once. */
let held: ServerResponse;
let headAtOnce = true;

beforeAll(async () => {
  server = createServer((_request, response) => {
    held = response;
    if (!headAtOnce) return;
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('first\n');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const url = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

/** Shortly before the timeout is due, `send` runs, then the loop stays busy for twice the timeout. */
const busyAfter = (send: () => void) =>
  setTimeout(
    () =>
      setImmediate(() => {
        send();
        const until = performance.now() + 2 * TIMEOUT_MS;
        while (performance.now() < until) {
          // Busy: the process, not the upstream, is slow.
        }
      }),
    TIMEOUT_MS / 2,
  );

it('reads a chunk that waited through a busy loop instead of calling the body idle', async () => {
  headAtOnce = true;
  const body = await new Promise<IncomingMessage>((resolve) => request(url(), resolve).end());
  const chunks: string[] = [];
  let failure: unknown;
  const read = new Promise<void>((resolve) =>
    listenToBody(body, TIMEOUT_MS, {
      chunk: (chunk) => chunks.push(String(chunk)),
      end: resolve,
      error: (error) => {
        failure = error;
        resolve();
      },
    }),
  );

  busyAfter(() => {
    held.write('second\n');
    held.end();
  });
  await read;

  expect(failure).toBeUndefined();
  expect(chunks.join('')).toBe('first\nsecond\n');
});

it('takes an answer whose head came during a busy loop instead of timing out its first byte', async () => {
  headAtOnce = false;
  const answer = sendUpstream({
    url: url(),
    headers: {},
    body: '{}',
    signal: new AbortController().signal,
    timeouts: { connectMs: 5_000, firstByteMs: TIMEOUT_MS, idleMs: 5_000 },
  });

  busyAfter(() => held.end('whole'));

  const response = await answer;
  expect(response.status).toBe(200);
  response.body.resume();
  await once(response.body, 'end');
});
