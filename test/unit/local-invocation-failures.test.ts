import { jest } from '@jest/globals';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';

/**
 * An invocation that fails, as the local runtime answers it: a streaming function's failure before
 * its head gets the path's error envelope (as from Lambda's runtime), a buffered function's the same,
 * and a failure after a streamed answer leaves the answer whole; the request is counted ended once
 * whichever way it went. The functions' modules are replaced here: the gateway's own handlers answer
 * their failures themselves, so nothing real fails this way.
 */
let handler: unknown;
jest.unstable_mockModule('../../infra/local/handlers.js', () => ({
  loadedHandler: () => handler,
  loadHandler: async () => handler,
  handlerInitializations: () => 1,
}));
const { handleRequest } = await import('../../infra/local/handle-request.js');

const streaming = (body: (stream: Writable) => Promise<void>) =>
  Object.assign((_event: unknown, stream: Writable) => body(stream), {
    [Symbol.for('model-gateway.streaming-handler')]: true as const,
  });

let server: Server;
let url: string;
let ends = 0;

beforeAll(async () => {
  server = createServer((request, response) => handleRequest(request, response, () => (ends += 1)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  ends = 0;
});

/** Resolves once the runtime has counted `count` requests ended. */
const ended = async (count: number) => {
  while (ends < count) await new Promise((resolve) => setImmediate(resolve));
};

it("answers a streaming function's failure before its head with the path's envelope", async () => {
  handler = streaming(async () => {
    throw new Error('the function broke');
  });

  const answer = await fetch(`${url}/v1/messages`, { method: 'POST', body: '{}' });

  expect(answer.status).toBe(500);
  expect(answer.headers.get('x-request-id')).toBeTruthy();
  expect(await answer.json()).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  await ended(1);
  expect(ends).toBe(1);
});

it("answers a buffered function's failure with the path's envelope", async () => {
  handler = async () => {
    throw new Error('the function broke');
  };

  const answer = await fetch(`${url}/v1/models`);

  expect(answer.status).toBe(500);
  expect(answer.headers.get('x-request-id')).toBeTruthy();
  expect(await answer.json()).toMatchObject({ error: { type: 'server_error' } });
  await ended(1);
  expect(ends).toBe(1);
});

it('leaves a streamed answer whole when the function fails after it, and counts the request ended once', async () => {
  handler = streaming(async (stream) => {
    stream.end('whole answer');
    await once(stream, 'finish');
    throw new Error('deferred work failed after the answer');
  });

  const answer = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: '{}' });

  expect(answer.status).toBe(200);
  expect(await answer.text()).toBe('whole answer');
  await ended(1);
  expect(ends).toBe(1);
});

it('counts a request whose function answered and ended well ended once', async () => {
  handler = streaming(async (stream) => {
    stream.end('fine');
    await once(stream, 'finish');
  });

  const answer = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: '{}' });

  expect(await answer.text()).toBe('fine');
  await ended(1);
  expect(ends).toBe(1);
});
