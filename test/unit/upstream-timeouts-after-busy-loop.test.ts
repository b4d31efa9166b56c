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
/** The answer to the request the server holds. */
let held: ServerResponse;
/**
 * What the server does with a request as it arrives; by default it sends the head and a first line.
 * A case that answers later schedules it from here, with the request's own response: scheduled from
 * the test's side, under load it could run before the request had arrived and answer none.
 */
let onArrival = (response: ServerResponse) => {
  response.writeHead(200, { 'content-type': 'text/plain' });
  response.write('first\n');
};

beforeAll(async () => {
  server = createServer((_request, response) => {
    held = response;
    onArrival(response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const url = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

/**
 * Shortly before the timeout is due (`delayMs`, by default half the timeout), `send` runs, then the
 * loop stays busy for twice the timeout.
 */
const busyAfter = (send: () => void, delayMs = TIMEOUT_MS / 2) =>
  setTimeout(
    () =>
      setImmediate(() => {
        send();
        const until = performance.now() + 2 * TIMEOUT_MS;
        while (performance.now() < until) {
          // Busy: the process, not the upstream, is slow.
        }
      }),
    Math.max(0, delayMs),
  );

it('reads a chunk that waited through a busy loop instead of calling the body idle', async () => {
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
  const sentAt = performance.now();
  // Half the timeout after the request was sent, or at once if it arrives later than that.
  onArrival = (response) => busyAfter(() => response.end('whole'), TIMEOUT_MS / 2 - (performance.now() - sentAt));
  const answer = sendUpstream({
    url: url(),
    headers: {},
    body: '{}',
    signal: new AbortController().signal,
    timeouts: { connectMs: 5_000, firstByteMs: TIMEOUT_MS, idleMs: 5_000 },
  });

  const response = await answer;
  expect(response.status).toBe(200);
  response.body.resume();
  await once(response.body, 'end');
});
