import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Writable } from 'node:stream';
import { invalidJson } from '../../functions/shared/errors.js';
import { answerStreamingFailure, invokeHandler } from '../../infra/local/invoke-handler.js';
import type { StreamingHandler } from '../../infra/local/lambda-streaming.js';
import { whileOpen } from '../../infra/local/open-exchange.js';
import { lambdaContextStub, proxyEvent } from '../support/proxy-event.js';

/**
 * A streaming function that fails, as the local runtime serves it: before its head the client gets
 * the path's error envelope, as from Lambda's runtime; after its answer has closed, the client keeps
 * the answer it got and nothing is written after it.
 */

let server: Server;
let url: string;
let handler: StreamingHandler;
let invocation: Promise<void>;

const streaming = (body: (stream: Writable) => Promise<void>): StreamingHandler =>
  Object.assign((_event: unknown, stream: Writable) => body(stream), {
    [Symbol.for('model-gateway.streaming-handler')]: true as const,
  });

beforeAll(async () => {
  server = createServer((request, response) => {
    // As the runtime serves a streaming invocation: a failure is answered while the response allows.
    const exchange = whileOpen(request, response);
    invocation = invokeHandler(handler, proxyEvent(), lambdaContextStub(), response).catch((error: unknown) =>
      answerStreamingFailure(error, exchange, 'aws-req', 'openai'),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

it('answers a failure before the head with the error envelope and the request id', async () => {
  handler = streaming(async () => {
    throw invalidJson('unexpected end');
  });

  const answer = await fetch(url);

  expect(answer.status).toBe(400);
  expect(answer.headers.get('x-request-id')).toBe('aws-req');
  expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('invalid_json');
  await expect(invocation).resolves.toBeUndefined();
});

it('leaves a closed answer whole when the function fails after it, and ends the invocation', async () => {
  let answered: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (answered = resolve));
  handler = streaming(async (stream) => {
    stream.end('whole answer');
    await new Promise((resolve) => stream.once('close', resolve));
    await closed;
    throw new Error('deferred work failed after the answer');
  });

  const answer = await fetch(url, { headers: { connection: 'close' } });
  const text = await answer.text();
  answered();

  expect(answer.status).toBe(200);
  expect(text).toBe('whole answer');
  await expect(invocation).resolves.toBeUndefined();
});
