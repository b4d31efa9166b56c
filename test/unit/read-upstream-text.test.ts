import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { readUpstreamText } from '../../functions/shared/upstream/upstream-http.js';

/**
 * A whole upstream body read as text, over a real connection: chunks joined in order, and every way
 * a body can fail (a stall, a cut connection, too many bytes) an upstream error, never a hang.
 */

type Answer = (response: ServerResponse) => void;

let server: Server;
let answer: Answer;

beforeAll(async () => {
  server = createServer((_request, response) => answer(response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The response to a GET of the test server, its body not read yet. */
const fetchBody = (respond: Answer): Promise<IncomingMessage> => {
  answer = respond;
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: '127.0.0.1', port, path: '/', agent: false }, resolve);
    outgoing.once('error', reject);
    outgoing.end();
  });
};

test('joins the chunks of a body in order, multi-byte characters split across chunks included', async () => {
  const text = JSON.stringify({ id: 'chatcmpl-1', content: 'héllo wörld ✓'.repeat(50) });
  const bytes = Buffer.from(text);
  const body = await fetchBody((response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    // Cut every 7 bytes, through the middle of multi-byte characters.
    for (let start = 0; start < bytes.length; start += 7) response.write(bytes.subarray(start, start + 7));
    response.end();
  });
  await expect(readUpstreamText(body, 5_000)).resolves.toBe(text);
});

test('a body that keeps arriving within the idle allowance is read whole, past that allowance in all', async () => {
  const parts = ['{"id":', '"chatcmpl-1",', '"object":', '"chat.completion",', '"choices":', '[]', ',"n":1', '}'];
  const body = await fetchBody((response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    // A part every 25 ms: 200 ms in all, each gap well inside the 80 ms allowed.
    const next = (index: number) => {
      if (index === parts.length) return void response.end();
      response.write(parts[index]);
      setTimeout(() => next(index + 1), 25);
    };
    next(0);
  });
  await expect(readUpstreamText(body, 80)).resolves.toBe(parts.join(''));
});

test('a body that stops arriving fails as an upstream timeout', async () => {
  const body = await fetchBody((response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"id":'); // and nothing more
  });
  await expect(readUpstreamText(body, 50)).rejects.toMatchObject({ status: 504, code: 'upstream_timeout' });
  expect(body.destroyed).toBe(true);
});

test('a connection cut mid-body fails as an unreachable upstream', async () => {
  const body = await fetchBody((response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    response.write('{"id":', () => response.socket?.destroy());
  });
  await expect(readUpstreamText(body, 5_000)).rejects.toMatchObject({ status: 502, code: 'upstream_error' });
});

test('a body larger than allowed fails as an unreachable upstream and is not read further', async () => {
  const body = await fetchBody((response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('x'.repeat(600));
    response.write('x'.repeat(600));
    response.end();
  });
  await expect(readUpstreamText(body, 5_000, 1_000)).rejects.toMatchObject({ status: 502, code: 'upstream_error' });
  expect(body.destroyed).toBe(true);
});

test('a body torn down without an error of its own (its request aborted) fails instead of waiting', async () => {
  const body = await fetchBody((response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.write('{"id":'); // and the rest never comes
  });
  const reading = readUpstreamText(body, 60_000);
  body.once('data', () => body.destroy());
  await expect(reading).rejects.toMatchObject({ status: 502, code: 'upstream_error' });
});
