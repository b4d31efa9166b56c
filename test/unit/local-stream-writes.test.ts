import { once } from 'node:events';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable, type Writable } from 'node:stream';
import { invokeHandler } from '../../infra/local/invoke-handler.js';
import type { StreamingHandler } from '../../infra/local/lambda-streaming.js';
import { lambdaContextStub, proxyEvent } from '../support/proxy-event.js';

/**
 * The local runtime sends what a streaming function writes in one turn of the event loop in one
 * write on the socket, the chunked body's end included (a write of its own costs a syscall and a
 * wake-up of the client); what it writes in a later turn goes out in that turn, not held for more. A
 * body that ends in the turn it began goes out whole, with its length.
 */

let server: Server;
let port: number;
let handler: StreamingHandler;
/** Writes the server made on the last request's socket. */
let socketWrites = 0;

const streaming = (body: (stream: Writable) => Promise<void>): StreamingHandler =>
  Object.assign((_event: unknown, stream: Writable) => body(stream), {
    [Symbol.for('model-gateway.streaming-handler')]: true as const,
  });

beforeAll(async () => {
  server = createServer((request, response) => {
    socketWrites = 0;
    const socket = response.socket as Socket & { _writeGeneric: (...args: unknown[]) => unknown };
    const write = socket._writeGeneric;
    socket._writeGeneric = function (this: Socket, ...args: unknown[]) {
      socketWrites += 1;
      return write.apply(this, args);
    };
    void invokeHandler(handler, proxyEvent(), lambdaContextStub(), response);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Sends a request; resolves with its answer as it starts arriving. */
const open = (): Promise<IncomingMessage> =>
  new Promise((resolve, reject) => {
    const outgoing = httpRequest({ port, host: '127.0.0.1', path: '/', agent: false }, resolve);
    outgoing.on('error', reject);
    outgoing.end();
  });

/** A promise the test settles by hand: the handler waits on `released` until `release` is called. */
const gate = () => {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  return { released, release: () => release() };
};

const textOf = async (answer: IncomingMessage): Promise<string> => {
  let text = '';
  for await (const chunk of answer) text += String(chunk);
  return text;
};

it('sends the events and the end a body gives in one turn in one write', async () => {
  // As a relayed stream reaches the response: its events and its end pushed together, then piped.
  handler = streaming(async (stream) => {
    const body = new Readable({ read: () => undefined });
    body.pipe(stream);
    body.push('data: 1\n\n');
    body.push('data: 2\n\n');
    body.push('data: [DONE]\n\n');
    body.push(null);
    await once(stream, 'finish');
  });

  const text = await textOf(await open());

  expect(text).toBe('data: 1\n\ndata: 2\n\ndata: [DONE]\n\n');
  expect(socketWrites).toBe(1);
});

it('sends what is written in a later turn in that turn, without waiting for more', async () => {
  const { released, release } = gate();
  handler = streaming(async (stream) => {
    stream.write('data: first\n\n');
    await released;
    stream.end('data: [DONE]\n\n');
  });

  const answer = await open();
  const [first] = (await once(answer, 'data')) as [Buffer];
  expect(String(first)).toBe('data: first\n\n');
  release();
  expect(await textOf(answer)).toBe('data: [DONE]\n\n');
});

it('sends a body whole in one write, with its length, when it ends in the turn it began', async () => {
  // As a buffered JSON answer reaches the response: the prelude's empty write, then the body and the end.
  handler = streaming(async (stream) => {
    stream.write('');
    stream.end('{"answer":"é"}');
    await once(stream, 'finish');
  });

  const answer = await open();

  expect(answer.headers['content-length']).toBe(String(Buffer.byteLength('{"answer":"é"}')));
  expect(answer.headers['transfer-encoding']).toBeUndefined();
  expect(await textOf(answer)).toBe('{"answer":"é"}');
  expect(socketWrites).toBe(1);
});

it('sends the head at the end of the turn when the body has not begun, and the body chunked after it', async () => {
  const { released, release } = gate();
  handler = streaming(async (stream) => {
    stream.write('');
    await released;
    stream.write('data: late\n\n');
    stream.end();
  });

  const answer = await open();
  expect(answer.statusCode).toBe(200);
  release();

  expect(answer.headers['transfer-encoding']).toBe('chunked');
  expect(await textOf(answer)).toBe('data: late\n\n');
});

it('sends an empty body with a length of zero when the stream ends at once', async () => {
  handler = streaming(async (stream) => {
    stream.end();
    await once(stream, 'finish');
  });

  const answer = await open();

  expect(answer.headers['content-length']).toBe('0');
  expect(await textOf(answer)).toBe('');
});
