import { jest } from '@jest/globals';
import { once } from 'node:events';
import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GatewayError } from '../../functions/shared/errors.js';
import { ConnectionPool, closeIdleConnections } from '../../functions/shared/http/client/connection-pool.js';
import { exchangeWithin } from '../../functions/shared/http/client/exchange-within.js';
import { bodyText } from '../../functions/shared/http/client/response-body.js';
import { targetOf } from '../../functions/shared/http/client/url-target.js';
import {
  defaultTimeouts,
  listenToBody,
  markBodyComplete,
  readUpstreamText,
  releaseBody,
  sendUpstream,
  type UpstreamRequest,
  type UpstreamResponse,
} from '../../functions/shared/upstream/upstream-http.js';
import { rejectionOf } from '../support/rejection-of.js';

/**
 * The gateway's own HTTP/1.1 client, through `sendUpstream`, against real servers on 127.0.0.1: what
 * the upstream receives, when a keep-alive connection is reused and when it is not, headers no head
 * can carry, backpressure, timeouts and aborts, and upstreams that answer with what HTTP cannot frame.
 * Every wait is on an event (a request, a connection's close), never on a clock.
 */

// ---------------------------------------------------------------------------------------------------
// Upstreams

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: readonly string[];
  readonly body: Buffer;
  /** The server side of the connection it came on. */
  readonly socket: Socket;
}

interface Upstream {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  readonly port: number;
  /** Server sides of the connections opened to it, in order. */
  readonly connections: Socket[];
}

interface HttpUpstream extends Upstream {
  readonly requests: Received[];
  /** Resolves with the next request to arrive (its body read). */
  nextRequest(): Promise<Received>;
}

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  closeIdleConnections();
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

afterAll(() => {
  closeIdleConnections();
  jest.restoreAllMocks();
});

/** A `node:http` server answering each request (its body read) with `answer`. */
const httpUpstream = async (
  answer: (request: Received, response: ServerResponse, index: number) => void = (_, response) => response.end('ok'),
): Promise<HttpUpstream> => {
  const requests: Received[] = [];
  const connections: Socket[] = [];
  const waiting: ((request: Received) => void)[] = [];
  const server = http.createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: Received = {
        method: request.method!,
        url: request.url!,
        headers: request.headers,
        rawHeaders: request.rawHeaders,
        body: Buffer.concat(chunks),
        socket: request.socket,
      };
      requests.push(received);
      waiting.shift()?.(received);
      answer(received, response, requests.length - 1);
    });
  });
  server.on('connection', (socket: Socket) => connections.push(socket));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    connections,
    requests,
    nextRequest: () => new Promise((resolve) => waiting.push(resolve)),
  };
};

/**
 * An upstream whose first answer is an event stream that sends `event` and stays open (`open()` is its
 * response, to end it); every later answer is a whole `ok`.
 */
const streamingUpstream = async (event: string) => {
  let first: ServerResponse | undefined;
  const upstream = await httpUpstream((_, response, index) => {
    if (index > 0) return void response.end('ok');
    first = response;
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write(`data: ${event}\n\n`);
  });
  return { ...upstream, open: () => first! };
};

/**
 * A `net` server on a port of its own that hands each connection to `serve`, keeps them and closes
 * them with the test; `firstConnection` resolves with the first one it takes.
 */
const netServer = async (serve: (socket: Socket) => void) => {
  const connections: Socket[] = [];
  const server = net.createServer((socket) => {
    connections.push(socket);
    socket.on('error', () => {});
    serve(socket);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    for (const socket of connections) socket.destroy();
    server.close();
    await once(server, 'close');
  });
  const firstConnection = once(server, 'connection').then(([socket]) => socket as Socket);
  return { port: (server.address() as AddressInfo).port, connections, firstConnection };
};

/**
 * A `net` server that answers each request (a head without a body) by writing whatever `answer`
 * writes on the socket: bytes no HTTP server library would send.
 */
const rawUpstream = async (answer: (socket: Socket, index: number, head: string) => void): Promise<Upstream> => {
  let index = 0;
  const { port, connections } = await netServer((socket) => {
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        const head = pending.slice(0, end);
        pending = pending.slice(end + 4);
        answer(socket, index++, head);
      }
    });
  });
  return { origin: `http://127.0.0.1:${port}`, port, connections };
};

/** Client sides of the connections the pool opens, in order (the call goes through to `net.connect`). */
const connectSpy = jest.spyOn(net, 'connect');
const lastClientSocket = (): Socket => connectSpy.mock.results.at(-1)!.value as Socket;

const call = (url: string, request: Partial<UpstreamRequest> = {}): Promise<UpstreamResponse> =>
  sendUpstream({
    url,
    method: 'GET',
    headers: {},
    signal: new AbortController().signal,
    timeouts: defaultTimeouts,
    ...request,
  });

/** A call whose whole body is read as text. */
const fetchText = async (url: string, request: Partial<UpstreamRequest> = {}) => {
  const response = await call(url, request);
  return { status: response.status, headers: response.headers, text: await readUpstreamText(response.body, 5_000) };
};

/** A GET of `url` through `pool` (a pool of the test's own settings), its whole body as text. */
const getThrough = async (pool: ConnectionPool, url: string): Promise<string> => {
  const target = targetOf(url);
  const answer = await exchangeWithin(
    { pool, origin: target.origin, method: 'GET', target: target.path, host: target.host, headers: {} },
    5_000,
    () => new Error('no answer'),
  );
  return bodyText(answer.body);
};

/**
 * A streamed call whose reader reads the upstream's last event, marks the body complete and stops,
 * the upstream's stream still open; `idleMs` is the body's idle timeout, which bounds the drain.
 */
const stoppedAfterLastEvent = async (idleMs: number) => {
  const upstream = await streamingUpstream('[DONE]');
  const response = await call(`${upstream.origin}/`);
  const reading = listenToBody(response.body, idleMs, { chunk: () => {}, end: () => {}, error: () => {} });
  await once(response.body, 'data');
  markBodyComplete(response.body);
  reading.stop();
  return { upstream, response };
};

const closed = (socket: Socket): Promise<void> =>
  socket.destroyed && socket.closed ? Promise.resolve() : once(socket, 'close').then(() => undefined);

/** Every message along an error's `cause` chain. */
const messagesOf = (error: unknown): string => {
  const messages: string[] = [];
  for (let at = error; at instanceof Error; at = at.cause) messages.push(at.message, String(at));
  return messages.join('\n');
};

// ---------------------------------------------------------------------------------------------------

describe('the request the upstream receives', () => {
  it('has the method, the path with its query, Host with the port, the caller’s headers, keep-alive, and the UTF-8 body’s length in bytes', async () => {
    const upstream = await httpUpstream((_, response) => {
      response.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes' });
      response.end('{"ok":true}');
    });
    const body = JSON.stringify({ text: 'héllo wörld ✓ 😀 — 日本語' });
    const answer = await fetchText(`${upstream.origin}/v1/chat/completions?api-version=2024-06-01&q=a%20b`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-test', 'X-Mixed-Case': 'Value' },
      body,
    });

    expect(answer).toMatchObject({ status: 201, text: '{"ok":true}' });
    expect(answer.headers['x-upstream']).toBe('yes');
    const [received] = upstream.requests;
    expect(received!.method).toBe('POST');
    expect(received!.url).toBe('/v1/chat/completions?api-version=2024-06-01&q=a%20b');
    expect(received!.headers.host).toBe(`127.0.0.1:${upstream.port}`);
    expect(received!.headers.connection).toBe('keep-alive');
    expect(received!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(Buffer.byteLength(body)).toBeGreaterThan(body.length);
    expect(received!.headers['transfer-encoding']).toBeUndefined();
    expect(received!.headers['content-type']).toBe('application/json');
    expect(received!.headers['x-api-key']).toBe('sk-test');
    expect(received!.headers['x-mixed-case']).toBe('Value');
    expect(received!.headers.authorization).toBeUndefined();
    expect(received!.body.toString('utf8')).toBe(body);
  });

  it('posts with no method given, and sends a header value of Latin-1 characters beside a UTF-8 body, each encoded as it must be', async () => {
    const upstream = await httpUpstream();
    const body = 'naïve ✓ 😀';
    await fetchText(`${upstream.origin}/`, { method: undefined, headers: { 'x-note': 'café ÿ' }, body });
    const [received] = upstream.requests;
    expect(received!.method).toBe('POST');
    // Node reads header bytes as Latin-1: 'é' arrived as the one byte 0xE9.
    expect(received!.headers['x-note']).toBe('café ÿ');
    expect(received!.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(received!.body.toString('utf8')).toBe(body);
  });

  it('sends a Buffer body byte for byte, whatever its bytes, and a GET without a body without a content-length', async () => {
    const upstream = await httpUpstream();
    const bytes = Buffer.alloc(200_000);
    for (let at = 0; at < bytes.length; at += 1) bytes[at] = (at * 7919) % 256;
    await fetchText(`${upstream.origin}/upload`, { method: 'POST', body: bytes });
    await fetchText(`${upstream.origin}/models`);

    const [upload, get] = upstream.requests;
    expect(upload!.headers['content-length']).toBe(String(bytes.length));
    expect(upload!.body.equals(bytes)).toBe(true);
    expect(get!.method).toBe('GET');
    expect(get!.url).toBe('/models');
    expect(get!.headers['content-length']).toBeUndefined();
    expect(get!.body.length).toBe(0);
  });

  it('drops the caller’s host, content-length, transfer-encoding and connection headers for its own', async () => {
    const upstream = await httpUpstream();
    await fetchText(`${upstream.origin}/`, {
      method: 'POST',
      headers: { Host: 'evil.example', 'Content-Length': '999', 'transfer-encoding': 'chunked', Connection: 'close' },
      body: 'four',
    });
    const [received] = upstream.requests;
    expect(received!.headers.host).toBe(`127.0.0.1:${upstream.port}`);
    expect(received!.headers['content-length']).toBe('4');
    expect(received!.headers['transfer-encoding']).toBeUndefined();
    expect(received!.headers.connection).toBe('keep-alive');
    expect(received!.body.toString()).toBe('four');
    // One of each: none of the caller's slipped through beside the client's own.
    const names = received!.rawHeaders.filter((_, at) => at % 2 === 0).map((name) => name.toLowerCase());
    for (const name of ['host', 'content-length', 'connection'])
      expect(names.filter((n) => n === name)).toHaveLength(1);
  });

  it('sends a header named twice in different cases once, with the later value, as Node’s client does', async () => {
    const upstream = await httpUpstream();
    await fetchText(`${upstream.origin}/`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-provider', 'x-trace': 'one', Authorization: 'Bearer sk-channel' },
      body: '{}',
    });
    const [received] = upstream.requests;
    const names = received!.rawHeaders.filter((_, at) => at % 2 === 0).map((name) => name.toLowerCase());
    expect(names.filter((name) => name === 'authorization')).toHaveLength(1);
    expect(received!.headers.authorization).toBe('Bearer sk-channel');
    expect(received!.headers['x-trace']).toBe('one');
  });

  it('sends Basic auth from the URL’s credentials, unless the request has its own Authorization', async () => {
    const upstream = await httpUpstream();
    const url = `http://us%40er:p%3Ass%20w@127.0.0.1:${upstream.port}/v1/models`;
    await fetchText(url);
    await fetchText(url, { headers: { Authorization: 'Bearer sk-own' } });

    const [basic, bearer] = upstream.requests;
    expect(basic!.headers.authorization).toBe(`Basic ${Buffer.from('us@er:p:ss w').toString('base64')}`);
    expect(basic!.url).toBe('/v1/models');
    expect(basic!.headers.host).toBe(`127.0.0.1:${upstream.port}`);
    expect(bearer!.headers.authorization).toBe('Bearer sk-own');
    expect(bearer!.rawHeaders.filter((name) => name.toLowerCase() === 'authorization')).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('keep-alive', () => {
  it('carries sequential calls on one connection', async () => {
    const upstream = await httpUpstream((request, response) => response.end(`answer to ${request.url}`));
    for (let n = 0; n < 5; n += 1) {
      await expect(fetchText(`${upstream.origin}/${n}`)).resolves.toMatchObject({ text: `answer to /${n}` });
    }
    expect(upstream.requests).toHaveLength(5);
    expect(upstream.connections).toHaveLength(1);
  });

  it('hands the connection back once the response’s last byte is read, before its reader has read it', async () => {
    const upstream = await httpUpstream((request, response) => response.end(`answer to ${request.url}`));
    const first = await call(`${upstream.origin}/first`);
    // The first body is whole in its stream; the second call takes the connection meanwhile.
    const second = await call(`${upstream.origin}/second`);
    await expect(readUpstreamText(second.body, 5_000)).resolves.toBe('answer to /second');
    await expect(readUpstreamText(first.body, 5_000)).resolves.toBe('answer to /first');
    expect(upstream.connections).toHaveLength(1);
  });

  it('gives concurrent calls a connection each, which later calls reuse', async () => {
    const upstream = await httpUpstream((request, response) => response.end(`answer to ${request.url}`));
    const urls = ['/a', '/b', '/c'].map((path) => `${upstream.origin}${path}`);
    // All three heads are in before any is answered: none can wait for another's connection.
    const held = await Promise.all(urls.map((url) => call(url)));
    await Promise.all(held.map(({ body }) => readUpstreamText(body, 5_000)));
    expect(upstream.connections).toHaveLength(3);
    for (const url of [...urls, ...urls]) await fetchText(url);
    expect(upstream.connections).toHaveLength(3);
  });

  it('skips interim heads, ends a 204 at its head, and reuses the connection after it', async () => {
    const upstream = await rawUpstream((socket, index) => {
      if (index === 0)
        socket.write('HTTP/1.1 103 Early Hints\r\nlink: </a>\r\n\r\nHTTP/1.1 204 No Content\r\nx-final: yes\r\n\r\n');
      else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
    const first = await fetchText(`${upstream.origin}/`);
    expect(first).toMatchObject({ status: 204, text: '' });
    expect(first.headers['x-final']).toBe('yes');
    expect(first.headers.link).toBeUndefined();
    await expect(fetchText(`${upstream.origin}/`)).resolves.toMatchObject({ status: 200, text: 'ok' });
    expect(upstream.connections).toHaveLength(1);
  });

  it('reads a body framed by the close to its end, and opens a new connection after it', async () => {
    const upstream = await rawUpstream((socket, index) => {
      if (index === 0) socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the close');
      else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
    await expect(fetchText(`${upstream.origin}/`)).resolves.toMatchObject({ text: 'until the close' });
    await expect(fetchText(`${upstream.origin}/`)).resolves.toMatchObject({ text: 'ok' });
    expect(upstream.connections).toHaveLength(2);
  });

  it('opens a new connection after a response that said connection: close', async () => {
    const upstream = await httpUpstream((_, response, index) => {
      if (index === 0) response.setHeader('connection', 'close');
      response.end('ok');
    });
    await fetchText(`${upstream.origin}/`);
    await fetchText(`${upstream.origin}/`);
    expect(upstream.connections).toHaveLength(2);
  });

  it('closes the connection of a body let go of before its end, and opens a new one for the next call', async () => {
    const upstream = await streamingUpstream('partial');
    const response = await call(`${upstream.origin}/`);
    await once(response.body, 'data');
    response.body.destroy();
    await closed(upstream.connections[0]!);
    expect(upstream.open().writableFinished).toBe(false);

    await expect(fetchText(`${upstream.origin}/`)).resolves.toMatchObject({ text: 'ok' });
    expect(upstream.connections).toHaveLength(2);
  });

  it('closes the connection of a body released unread (not marked complete)', async () => {
    const upstream = await streamingUpstream('partial');
    const response = await call(`${upstream.origin}/`);
    releaseBody(response.body, 5_000);
    await closed(upstream.connections[0]!);
    await fetchText(`${upstream.origin}/`);
    expect(upstream.connections).toHaveLength(2);
  });

  it('drains a body marked complete once its reader stops, and reuses its connection', async () => {
    const { upstream, response } = await stoppedAfterLastEvent(5_000);
    // The rest of the body (the chunked terminator) comes after the reader stopped.
    upstream.open().end();
    await once(response.body, 'end');

    await fetchText(`${upstream.origin}/`);
    expect(upstream.connections).toHaveLength(1);
  });

  it('closes a body marked complete whose upstream keeps it open, once its idle timeout has passed', async () => {
    // An idle timeout this short bounds the drain too: the upstream never ends the body.
    const { upstream, response } = await stoppedAfterLastEvent(20);
    upstream.open().write('data: more after the last event\n\n');

    await closed(upstream.connections[0]!);
    expect(response.body.readableEnded).toBe(false);
    await expect(fetchText(`${upstream.origin}/`)).resolves.toMatchObject({ text: 'ok' });
    expect(upstream.connections).toHaveLength(2);
  });

  it('closes an idle connection on which the upstream sends bytes nobody asked for, and opens a new one', async () => {
    const upstream = await rawUpstream((socket) => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
    await expect(fetchText(`${upstream.origin}/`)).resolves.toMatchObject({ text: 'ok' });
    // Not part of the answer's packet: written once the connection sits idle in the pool.
    upstream.connections[0]!.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nstray');

    await closed(upstream.connections[0]!);
    await expect(fetchText(`${upstream.origin}/`)).resolves.toMatchObject({ text: 'ok' });
    expect(upstream.connections).toHaveLength(2);
  });

  it('keeps at most 64 idle connections to an origin, closing the one past them', async () => {
    const held: ServerResponse[] = [];
    let allArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (allArrived = resolve));
    // The first 65 calls are held until all have arrived, each on a connection of its own.
    const upstream = await httpUpstream((_, response, index) => {
      if (index >= 65) return void response.end('ok');
      held.push(response);
      if (held.length === 65) allArrived();
    });
    const pool = new ConnectionPool();
    const get = () => getThrough(pool, `${upstream.origin}/`);
    const answers = Array.from({ length: 65 }, get);
    await arrived;
    for (const response of held) response.end('ok');
    await Promise.all(answers);

    const closing = await Promise.race(upstream.connections.map((socket) => closed(socket).then(() => socket)));
    expect(upstream.connections).toHaveLength(65);
    await get();
    // The next call took an idle one: no connection was opened for it.
    expect(upstream.connections).toHaveLength(65);
    expect(upstream.connections.filter((socket) => socket.destroyed)).toEqual([closing]);
    pool.closeIdle();
  });

  it('opens a new connection after a response it could not frame', async () => {
    const upstream = await rawUpstream((socket, index) => {
      if (index === 1) socket.write('HTTP/1.1 200 OK\r\nnot a header\r\n\r\n');
      else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
    await expect(fetchText(`${upstream.origin}/`)).resolves.toMatchObject({ text: 'ok' });
    const error = await rejectionOf(call(`${upstream.origin}/`));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 502 });
    await expect(fetchText(`${upstream.origin}/`)).resolves.toMatchObject({ text: 'ok' });
    expect(upstream.connections).toHaveLength(2);
  });

  it('opens a new connection after a body it could not frame', async () => {
    const upstream = await rawUpstream((socket, index) => {
      if (index === 0) socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n');
      else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
    const response = await call(`${upstream.origin}/`);
    const text = readUpstreamText(response.body, 5_000);
    upstream.connections[0]!.write('2\r\nokTOO-LONG\r\n0\r\n\r\n');
    await expect(text).rejects.toMatchObject({ status: 502 });
    await closed(upstream.connections[0]!);
    await expect(fetchText(`${upstream.origin}/`)).resolves.toMatchObject({ text: 'ok' });
    expect(upstream.connections).toHaveLength(2);
  });

  it.each([
    ['closed', 'close'],
    // The client has read the upstream's FIN (and ended its own side); its socket closes a turn later.
    ['ended, before its socket closed', 'end'],
  ] as const)('does not use an idle connection the upstream %s', async (_case, event) => {
    const upstream = await httpUpstream();
    await fetchText(`${upstream.origin}/`);
    const client = lastClientSocket();
    upstream.connections[0]!.end();
    await (event === 'close' ? closed(client) : once(client, 'end'));

    await expect(fetchText(`${upstream.origin}/`)).resolves.toMatchObject({ text: 'ok' });
    expect(upstream.connections).toHaveLength(2);
  });

  it('does not use a connection idle for longer than its pool allows, and closes it', async () => {
    const upstream = await httpUpstream();
    // Every idle connection is too old for this pool: as the upstream pool finds them after 4 s, or
    // after a Lambda environment's freeze.
    const pool = new ConnectionPool({ idleLimitMs: 0 });
    const get = () => getThrough(pool, `${upstream.origin}/`);
    await get();
    await expect(get()).resolves.toBe('ok');

    expect(upstream.connections).toHaveLength(2);
    await closed(upstream.connections[0]!);
    pool.closeIdle();
  });

  it('fails with a 502 a call whose reused connection the upstream closes instead of answering', async () => {
    // A server's idle close crossing the reuse looks the same: a reset before an answer is the
    // channel's failure, for failover to move on from, and is not sent again.
    const upstream = await httpUpstream((request, response, index) => {
      if (index === 1) request.socket.destroy();
      else response.end('ok');
    });
    await fetchText(`${upstream.origin}/`);

    const error = await rejectionOf(fetchText(`${upstream.origin}/`));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 502, cause: { code: 'ECONNRESET' } });
    expect(upstream.requests).toHaveLength(2);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('a header no HTTP head can carry', () => {
  const SECRET = 'sk-live-0123456789abcdef';

  it.each([
    ['a CRLF in a value', { 'x-api-key': `${SECRET}\r\nx-injected: yes` }],
    ['a bare LF in a value', { authorization: `Bearer ${SECRET}\n` }],
    ['a bare CR in a value', { 'x-api-key': `${SECRET}\r` }],
    ['a NUL in a value', { 'x-api-key': `${SECRET}\0` }],
    ['a character beyond Latin-1 in a value', { 'x-api-key': `${SECRET}✓` }],
    ['a space in a name', { [`x ${SECRET}`]: 'value' }],
    ['a CRLF in a name', { [`x-key\r\n${SECRET}`]: 'value' }],
    ['a colon in a name', { [`x:${SECRET}`]: 'value' }],
    ['an empty name', { '': SECRET }],
  ])('(%s) is refused with a 502 that does not tell it, and nothing reaches the upstream', async (_, headers) => {
    const upstream = await httpUpstream();
    const error = await rejectionOf(call(`${upstream.origin}/refused`, { method: 'POST', headers, body: '{}' }));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 502 });
    expect(messagesOf(error)).not.toContain(SECRET);
    expect(messagesOf(error)).not.toContain('x-injected');

    // The next request is the first the upstream sees, on the first connection it gets.
    await fetchText(`${upstream.origin}/after`);
    expect(upstream.requests.map(({ url }) => url)).toEqual(['/after']);
    expect(upstream.connections).toHaveLength(1);
    expect(upstream.requests[0]!.headers['x-injected']).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------------

describe('backpressure', () => {
  it('delivers a large body read slowly whole and in order, holding little of it at a time', async () => {
    const size = 8 * 1024 * 1024;
    const bytes = Buffer.alloc(size);
    for (let at = 0; at < size; at += 4) bytes.writeUInt32BE(at, at);
    const upstream = await httpUpstream((request, response) => {
      if (request.url !== '/large') return void response.end('ok');
      response.writeHead(200, { 'content-length': String(size) });
      response.end(bytes);
    });

    const response = await call(`${upstream.origin}/large`);
    const received: Buffer[] = [];
    let mostBuffered = 0;
    // A slow reader: each chunk taken a loop turn later.
    const slow = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _encoding, done) {
        received.push(chunk);
        mostBuffered = Math.max(mostBuffered, response.body.readableLength);
        setImmediate(done);
      },
    });
    await pipeline(response.body, slow);

    const all = Buffer.concat(received);
    expect(all.length).toBe(size);
    expect(all.equals(bytes)).toBe(true);
    // Without backpressure the whole body would wait in the stream; with it, a few socket reads at most.
    expect(mostBuffered).toBeLessThan(1024 * 1024);
    // The socket paused for the slow reader is read again once back in the pool.
    await expect(fetchText(`${upstream.origin}/next`)).resolves.toMatchObject({ text: 'ok' });
    expect(upstream.connections).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('timeouts and aborts', () => {
  it('rejects with a 504 when no head comes within the first-byte timeout, and closes the connection', async () => {
    const upstream = await httpUpstream(() => {
      // Never answers.
    });
    const error = await rejectionOf(call(`${upstream.origin}/`, { timeouts: { ...defaultTimeouts, firstByteMs: 50 } }));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 504, code: 'upstream_timeout' });
    await closed(upstream.connections[0]!);
  });

  it('rejects at once, sending nothing, when the signal is already aborted', async () => {
    const upstream = await httpUpstream();
    const controller = new AbortController();
    controller.abort();
    await expect(call(`${upstream.origin}/aborted`, { signal: controller.signal })).rejects.toMatchObject({
      status: 499,
    });
    await fetchText(`${upstream.origin}/after`);
    expect(upstream.requests.map(({ url }) => url)).toEqual(['/after']);
  });

  it('rejects when aborted before the head, and closes the connection', async () => {
    const upstream = await httpUpstream(() => {
      // Holds the request.
    });
    const controller = new AbortController();
    const answer = call(`${upstream.origin}/`, { signal: controller.signal });
    const arrived = await upstream.nextRequest();
    controller.abort();
    const error = await rejectionOf(answer);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 499 });
    await closed(arrived.socket);
  });

  it('rejects with the abort’s reason when it is one of the gateway’s errors', async () => {
    const upstream = await httpUpstream(() => {});
    const controller = new AbortController();
    const answer = call(`${upstream.origin}/`, { signal: controller.signal });
    await upstream.nextRequest();
    const reason = new GatewayError('out of time', { status: 504, type: 'timeout', code: 'function_timeout' });
    controller.abort(reason);
    await expect(answer).rejects.toBe(reason);
  });

  it('destroys the body when aborted while it is read; the reader hears a 499 and the upstream the close', async () => {
    const upstream = await streamingUpstream('first');
    const controller = new AbortController();
    const response = await call(`${upstream.origin}/`, { signal: controller.signal });
    const heard = new Promise<{ chunks: string[]; error: GatewayError }>((resolve) => {
      const chunks: string[] = [];
      listenToBody(response.body, 5_000, {
        chunk: (chunk) => {
          chunks.push(chunk.toString());
          controller.abort();
        },
        end: () => {},
        error: (error) => resolve({ chunks, error }),
      });
    });
    const { chunks, error } = await heard;
    expect(chunks).toEqual(['data: first\n\n']);
    expect(error).toMatchObject({ status: 499 });
    expect(response.body.destroyed).toBe(true);
    await closed(upstream.connections[0]!);
  });

  it('rejects with a 502 when the upstream refuses the connection', async () => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    server.close();
    await once(server, 'close');
    await expect(call(`http://127.0.0.1:${port}/`)).rejects.toMatchObject({ status: 502 });
  });

  /**
   * A server that takes the TCP connection and never answers the TLS handshake: a connection that is
   * never set up, whatever the network (an address that drops packets is not one on every machine).
   */
  const silentTlsServer = async () => {
    // Reads (and drops) the client's hello, so that it hears the client close.
    const server = await netServer((socket) => socket.resume());
    return { url: `https://127.0.0.1:${server.port}/`, firstSocket: server.firstConnection };
  };

  it('rejects with a 504 when the connection is not set up within the first-byte timeout, and closes it', async () => {
    const server = await silentTlsServer();
    const error = await rejectionOf(call(server.url, { timeouts: { ...defaultTimeouts, firstByteMs: 50 } }));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 504, code: 'upstream_timeout' });
    await closed(await server.firstSocket);
  });

  it('rejects with a 504 when the TLS handshake does not finish within the connect timeout, and closes the connection', async () => {
    const server = await silentTlsServer();
    const error = await rejectionOf(call(server.url, { timeouts: { ...defaultTimeouts, connectMs: 50 } }));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 504, code: 'upstream_timeout' });
    expect(messagesOf(error)).toContain('connect');
    await closed(await server.firstSocket);
  });

  it('rejects when aborted while the connection is being set up, and closes it', async () => {
    const server = await silentTlsServer();
    const controller = new AbortController();
    const answer = call(server.url, { signal: controller.signal });
    const socket = await server.firstSocket;
    controller.abort();
    const error = await rejectionOf(answer);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 499 });
    await closed(socket);
  });
});

// ---------------------------------------------------------------------------------------------------

describe('an upstream that answers with what HTTP cannot frame', () => {
  /** How a call fails: rejected before the head, or its body failing once read. */
  const failureOf = async (url: string): Promise<{ when: 'before the head' | 'in the body'; error: unknown }> => {
    let response: UpstreamResponse;
    try {
      response = await call(url);
    } catch (error) {
      return { when: 'before the head', error };
    }
    // Read at once, as every caller does once `sendUpstream` has resolved.
    return { when: 'in the body', error: await rejectionOf(readUpstreamText(response.body, 5_000)) };
  };

  it.each([
    ['a status line that is not HTTP', 'HELLO WORLD\r\n\r\n'],
    ['a header line without a colon', 'HTTP/1.1 200 OK\r\nnot a header\r\n\r\n'],
    ['a line break inside a header value', 'HTTP/1.1 200 OK\r\nx-a: 1\rx-b: 2\r\n\r\n'],
    ['two different content-lengths', 'HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nok'],
    ['a protocol switch', 'HTTP/1.1 101 Switching Protocols\r\nupgrade: h2c\r\n\r\n'],
  ])('(%s) is a rejection with a 502 before any head', async (_, answer) => {
    const upstream = await rawUpstream((socket) => socket.write(answer));
    const error = await rejectionOf(call(`${upstream.origin}/`));
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 502 });
  });

  it('is a rejection with a 502 when the upstream closes before its head ends', async () => {
    const upstream = await rawUpstream((socket) => socket.end('HTTP/1.1 200 OK\r\ncontent-'));
    await expect(call(`${upstream.origin}/`)).rejects.toMatchObject({ status: 502 });
  });

  it.each([
    ['closes', (socket: Socket) => socket.end()],
    ['resets the connection', (socket: Socket) => socket.resetAndDestroy()],
  ])('fails the body with a 502 when the upstream %s mid-body', async (_case, cut) => {
    const upstream = await rawUpstream((socket) =>
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly ten b', () => cut(socket)),
    );
    const response = await call(`${upstream.origin}/`);
    await expect(readUpstreamText(response.body, 5_000)).rejects.toMatchObject({ status: 502 });
  });

  it('fails the body with a 502 when a chunk size that is not hexadecimal comes after the head', async () => {
    const upstream = await rawUpstream((socket) =>
      socket.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n'),
    );
    const response = await call(`${upstream.origin}/`);
    const failure = new Promise<GatewayError>((resolve) =>
      listenToBody(response.body, 5_000, { chunk: () => {}, end: () => {}, error: resolve }),
    );
    upstream.connections[0]!.write('zz\r\n');
    await expect(failure).resolves.toMatchObject({ status: 502 });
  });

  // In one packet with its head: the body's error comes while `sendUpstream` resolves, before any
  // reader can listen. It must reach the reader, never be thrown.
  it.each([
    ['a chunk size that is not hexadecimal', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'],
    ['a chunk longer than its size', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nokay\r\n0\r\n\r\n'],
    ['a content-length that is not a number', 'HTTP/1.1 200 OK\r\ncontent-length: 12abc\r\n\r\n12abc bytes'],
    ['chunked applied twice', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked, chunked\r\n\r\n0\r\n\r\n'],
  ])(
    '(%s, in the same packet as the head) is a 502, as a rejection or as the body’s error, and nothing is thrown',
    async (_, answer) => {
      const upstream = await rawUpstream((socket) => socket.write(answer));
      const { error } = await failureOf(`${upstream.origin}/`);
      expect(error).toBeInstanceOf(GatewayError);
      expect(error).toMatchObject({ status: 502 });
    },
  );

  it('a body torn down before anyone reads it (the client left between the head and the first read) tells its reader, and throws nothing', async () => {
    const upstream = await streamingUpstream('first');
    const controller = new AbortController();
    const response = await call(`${upstream.origin}/`, { signal: controller.signal });
    controller.abort();
    // The caller is busy elsewhere for a loop turn (a failover's bookkeeping, a write to its client).
    await new Promise((resolve) => setImmediate(resolve));
    await expect(readUpstreamText(response.body, 5_000)).rejects.toMatchObject({ status: 499 });
  });
});
