import { jest } from '@jest/globals';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Readable } from 'node:stream';
import { closeIdleConnections } from '../../functions/shared/http/client/connection-pool.js';
import { ResponseBody } from '../../functions/shared/http/client/response-body.js';
import { defaultTimeouts, readUpstreamText, sendUpstream } from '../../functions/shared/upstream/upstream-http.js';

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
  closeIdleConnections();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The body of a GET of the test server, as the gateway's client hands it over, not read yet. */
const fetchBody = async (respond: Answer): Promise<Readable> => {
  answer = respond;
  const { port } = server.address() as AddressInfo;
  const response = await sendUpstream({
    url: `http://127.0.0.1:${port}/`,
    method: 'GET',
    headers: {},
    signal: new AbortController().signal,
    timeouts: defaultTimeouts,
  });
  return response.body;
};

test('a whole body that came with its head is read as it waits, and one too large still fails', async () => {
  const text = JSON.stringify({ id: 'chatcmpl-1', content: 'héllo ✓' });
  const whole = await fetchBody((response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  });
  // Received in full before anyone reads it: the case read without listening.
  expect(whole instanceof ResponseBody && whole.received).toBe(true);
  const listening = jest.spyOn(whole, 'on');
  await expect(readUpstreamText(whole, 5_000)).resolves.toBe(text);
  // Taken as it waits: no listener, no idle timer.
  expect(listening).not.toHaveBeenCalled();

  const large = await fetchBody((response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': 1_200 });
    response.end('x'.repeat(1_200));
  });
  expect(large instanceof ResponseBody && large.received).toBe(true);
  await expect(readUpstreamText(large, 5_000, 1_000)).rejects.toMatchObject({ status: 502, code: 'upstream_error' });
  expect(large.destroyed).toBe(true);
});

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
