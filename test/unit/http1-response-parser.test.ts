import fc from 'fast-check';
import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import {
  MAX_HEAD_BYTES,
  ResponseFramingError,
  ResponseParser,
} from '../../functions/shared/http/client/response-parser.js';

/**
 * The gateway's HTTP/1.1 response parser, fed as a socket feeds it: the same bytes, cut anywhere,
 * must read as the same response, the one Node's own parser (llhttp) reads; anything it cannot frame
 * exactly must be a `ResponseFramingError`, never another error and never a hang.
 */

// ---------------------------------------------------------------------------------------------------
// Feeding the parser

interface Outcome {
  readonly heads: { status: number; headers: Record<string, string | string[]> }[];
  readonly body: Buffer;
  /** `reusable` of each end told. */
  readonly ends: boolean[];
  /** Body bytes before the head, or anything after the end. */
  readonly outOfOrder: boolean;
  /** `close()` said the close cut the response short. */
  readonly cutShort: boolean;
  readonly error?: unknown;
}

/** Feeds `pieces` in order (then `close()` when asked) and records what the parser told. */
const parse = (pieces: readonly Buffer[], options: { close?: boolean; noBody?: boolean } = {}): Outcome => {
  const heads: Outcome['heads'] = [];
  const chunks: Buffer[] = [];
  const ends: boolean[] = [];
  let outOfOrder = false;
  let cutShort = false;
  const parser = new ResponseParser(
    {
      responseHead: (head) => {
        if (heads.length > 0 || ends.length > 0) outOfOrder = true;
        heads.push({ status: head.status, headers: { ...head.headers } });
      },
      responseBody: (chunk) => {
        if (heads.length === 0 || ends.length > 0) outOfOrder = true;
        chunks.push(Buffer.from(chunk));
      },
      responseEnd: (reusable) => {
        if (heads.length === 0 || ends.length > 0) outOfOrder = true;
        ends.push(reusable);
      },
    },
    options.noBody,
  );
  const done = (error?: unknown): Outcome => ({
    heads,
    body: Buffer.concat(chunks),
    ends,
    outOfOrder,
    cutShort,
    ...(error === undefined ? {} : { error }),
  });
  try {
    for (const piece of pieces) parser.feed(piece);
    if (options.close) cutShort = !parser.close();
  } catch (error) {
    return done(error);
  }
  return done();
};

const whole = (bytes: Buffer): Buffer[] => [bytes];
const byteByByte = (bytes: Buffer): Buffer[] =>
  Array.from({ length: bytes.length }, (_, at) => bytes.subarray(at, at + 1));
/** Cut at the given offsets (taken modulo the length; empty pieces kept: a socket never sends one, the parser must not mind). */
const cutAt = (bytes: Buffer, cuts: readonly number[]): Buffer[] => {
  const offsets = cuts.map((cut) => cut % (bytes.length + 1)).sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const offset of offsets) {
    pieces.push(bytes.subarray(from, offset));
    from = offset;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
};

type Split = 'bytes' | readonly number[];
const split: fc.Arbitrary<Split> = fc.oneof(
  { weight: 1, arbitrary: fc.constant('bytes' as const) },
  { weight: 4, arbitrary: fc.array(fc.nat(), { maxLength: 24 }) },
);
/** Splits without the byte-by-byte case, for inputs tens of kilobytes long. */
const fewCuts: fc.Arbitrary<Split> = fc.array(fc.nat(), { minLength: 1, maxLength: 8 });
const piecesOf = (bytes: Buffer, how: Split): Buffer[] => (how === 'bytes' ? byteByByte(bytes) : cutAt(bytes, how));

const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');

// ---------------------------------------------------------------------------------------------------
// Generated responses

type Header = readonly [name: string, value: string];

interface ChunkModel {
  readonly data: Uint8Array;
  /** The size as sent: hexadecimal, any case, maybe with leading zeros. */
  readonly size: string;
  readonly extensions: string;
}

type Framing =
  | { readonly kind: 'length'; readonly body: Uint8Array; readonly lengthName: string }
  | {
      readonly kind: 'chunked';
      readonly chunks: readonly ChunkModel[];
      readonly lastSize: string;
      readonly lastExtensions: string;
      readonly trailers: readonly Header[];
      readonly codingName: string;
    }
  | { readonly kind: 'close'; readonly body: Uint8Array };

interface ResponseModel {
  readonly minor: 0 | 1;
  readonly status: number;
  /** The reason phrase; undefined: the status line ends after the code. */
  readonly reason: string | undefined;
  readonly interim: readonly { readonly status: number; readonly headers: readonly Header[] }[];
  /** Header lines as sent (`name:value`, the value with its optional whitespace). */
  readonly headers: readonly Header[];
  readonly connection: 'close' | 'keep-alive' | 'Keep-Alive' | undefined;
  /** Where among the headers the framing (and connection) header goes. */
  readonly framingAt: number;
  readonly framing: Framing;
  readonly eol: '\r\n' | '\n';
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,16}$/;
/**
 * Names whose meaning the model sets itself (framing, reuse) or that Node reads differently on
 * purpose: `cookie` (Node joins its repeats with '; ', see the example below), `upgrade` and
 * `proxy-connection` (llhttp acts on them).
 */
const RESERVED = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'proxy-connection',
  'upgrade',
  'cookie',
  '__proto__',
]);
const commonName = fc.mixedCase(
  fc.constantFrom(
    'x-request-id',
    'set-cookie',
    'content-type',
    'server',
    'date',
    'vary',
    'etag',
    'location',
    'retry-after',
    'cache-control',
    'link',
    'age',
    'expires',
    'last-modified',
    'www-authenticate',
    'openai-processing-ms',
    'x-ratelimit-remaining-requests',
  ),
);
const headerName = fc.oneof(
  commonName,
  fc.stringMatching(TOKEN).filter((name) => !RESERVED.has(name.toLowerCase())),
);
/** A field value: visible ASCII, obs-text and inner spaces and tabs; none at its edges (SP, HTAB, NBSP). */
const valueCore = fc
  .array(
    fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 0x21, max: 0x7e }) },
      { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
      { weight: 1, arbitrary: fc.constantFrom(0x20, 0x09) },
    ),
    { maxLength: 24 },
  )
  .map((codes) => String.fromCharCode(...codes).replace(/^[ \t\xa0]+|[ \t\xa0]+$/g, ''));
/** Optional whitespace around a value, which is not part of it. */
const ows = fc.stringMatching(/^[ \t]{0,2}$/);
const header: fc.Arbitrary<Header> = fc
  .tuple(headerName, ows, valueCore, ows)
  .map(([name, before, core, after]) => [name, `${before}${core}${after}`] as const);
const headers = fc.array(header, { maxLength: 10 });

const hexSize = (size: number) =>
  fc
    .tuple(fc.boolean(), fc.integer({ min: 0, max: 2 }))
    .map(([upper, zeros]) => '0'.repeat(zeros) + (upper ? size.toString(16).toUpperCase() : size.toString(16)));
const extensionToken = fc.stringMatching(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,8}$/);
const extensions = fc
  .array(
    fc
      .tuple(extensionToken, fc.option(fc.oneof(extensionToken, fc.stringMatching(/^"[A-Za-z0-9 ]{0,8}"$/))))
      .map(([name, value]) => `;${name}${value === null ? '' : `=${value}`}`),
    { maxLength: 3 },
  )
  .map((parts) => parts.join(''));
const chunk: fc.Arbitrary<ChunkModel> = fc
  .uint8Array({ minLength: 1, maxLength: 120 })
  .chain((data) => fc.record({ data: fc.constant(data), size: hexSize(data.length), extensions }));
const trailer: fc.Arbitrary<Header> = fc
  .tuple(fc.stringMatching(/^x-[a-z0-9-]{1,10}$/), valueCore)
  .map(([name, value]) => [name, ` ${value}`] as const);

const framing: fc.Arbitrary<Framing> = fc.oneof(
  fc.record({
    kind: fc.constant('length' as const),
    body: fc.uint8Array({ maxLength: 400 }),
    lengthName: fc.mixedCase(fc.constant('content-length')),
  }),
  fc.record({
    kind: fc.constant('chunked' as const),
    chunks: fc.array(chunk, { maxLength: 6 }),
    lastSize: fc.constantFrom('0', '00', '000'),
    lastExtensions: extensions,
    trailers: fc.array(trailer, { maxLength: 3 }),
    codingName: fc.mixedCase(fc.constant('chunked')),
  }),
  fc.record({ kind: fc.constant('close' as const), body: fc.uint8Array({ maxLength: 400 }) }),
);

const responseModel = (eol: fc.Arbitrary<'\r\n' | '\n'>): fc.Arbitrary<ResponseModel> =>
  fc.record({
    minor: fc.constantFrom(0 as const, 1 as const),
    status: fc.integer({ min: 200, max: 599 }),
    reason: fc.option(fc.stringMatching(/^[\x20-\x7e]{0,20}$/), { nil: undefined }),
    interim: fc.array(
      fc.record({ status: fc.constantFrom(100, 102, 103), headers: fc.array(header, { maxLength: 3 }) }),
      {
        maxLength: 2,
      },
    ),
    headers,
    connection: fc.constantFrom(undefined, 'close' as const, 'keep-alive' as const, 'Keep-Alive' as const),
    framingAt: fc.nat(),
    framing,
    eol,
  });

/** Statuses whose responses never have a body, whatever their head says. */
const bodiless = (status: number) => status === 204 || status === 304;

/** The bytes of a response. */
const render = (model: ResponseModel): Buffer => {
  const { eol } = model;
  const lines = model.headers.map(([name, value]) => `${name}:${value}`);
  const special: string[] = [];
  const { framing } = model;
  if (!bodiless(model.status)) {
    if (framing.kind === 'length') special.push(`${framing.lengthName}: ${framing.body.length}`);
    if (framing.kind === 'chunked') special.push(`Transfer-Encoding: ${framing.codingName}`);
  }
  if (model.connection) special.push(`Connection: ${model.connection}`);
  lines.splice(model.framingAt % (lines.length + 1), 0, ...special);
  const interim = model.interim.map(
    (head) => `HTTP/1.1 ${head.status} Interim${eol}${head.headers.map(([n, v]) => `${n}:${v}${eol}`).join('')}${eol}`,
  );
  const statusLine = `HTTP/1.${model.minor} ${model.status}${model.reason === undefined ? '' : ` ${model.reason}`}`;
  const head = latin1(`${interim.join('')}${[statusLine, ...lines].map((line) => `${line}${eol}`).join('')}${eol}`);
  if (bodiless(model.status)) return head;
  if (framing.kind !== 'chunked') return Buffer.concat([head, framing.body]);
  const parts: Buffer[] = [head];
  for (const { data, size, extensions: ext } of framing.chunks) {
    parts.push(latin1(`${size}${ext}${eol}`), Buffer.from(data), latin1(eol));
  }
  parts.push(latin1(`${framing.lastSize}${framing.lastExtensions}${eol}`));
  for (const [name, value] of framing.trailers) parts.push(latin1(`${name}:${value}${eol}`));
  parts.push(latin1(eol));
  return Buffer.concat(parts);
};

/** The body a reader must get. */
const expectedBody = (model: ResponseModel): Buffer => {
  if (bodiless(model.status)) return Buffer.alloc(0);
  const { framing } = model;
  return framing.kind === 'chunked' ? Buffer.concat(framing.chunks.map(({ data }) => data)) : Buffer.from(framing.body);
};

/** Whether the body runs until the connection closes. */
const readsUntilClose = (model: ResponseModel) => !bodiless(model.status) && model.framing.kind === 'close';

/** Whether the connection may carry another request after this response. */
const expectedReusable = (model: ResponseModel): boolean => {
  if (readsUntilClose(model)) return false;
  const connection = model.connection?.toLowerCase();
  return model.minor === 1 ? connection !== 'close' : connection === 'keep-alive';
};

/** What Node's own client (llhttp and IncomingMessage) reads from the same bytes. */
interface NodeView {
  readonly status?: number;
  readonly headers?: Record<string, string | string[] | undefined>;
  readonly body?: Buffer;
  readonly error?: string;
}

let nodeServer: net.Server;
let nodeAnswer: Buffer = Buffer.alloc(0);

beforeAll(async () => {
  nodeServer = net.createServer((socket) => {
    socket.on('error', () => {});
    // The answer once the request is in; the close then ends a body read until close.
    socket.once('data', () => socket.end(nodeAnswer));
  });
  nodeServer.listen(0, '127.0.0.1');
  await once(nodeServer, 'listening');
});

afterAll(async () => {
  nodeServer.close();
  await once(nodeServer, 'close');
});

const nodeReads = (bytes: Buffer): Promise<NodeView> =>
  new Promise((resolve) => {
    nodeAnswer = bytes;
    const { port } = nodeServer.address() as AddressInfo;
    const request = http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (data: Buffer) => chunks.push(data));
      response.on('error', (error) => resolve({ error: String(error) }));
      response.on('end', () =>
        resolve({ status: response.statusCode, headers: { ...response.headers }, body: Buffer.concat(chunks) }),
      );
    });
    request.on('error', (error) => resolve({ error: String(error) }));
  });

// ---------------------------------------------------------------------------------------------------

describe('a well-formed response', () => {
  it('reads the same, cut anywhere (byte by byte included), as whole: head, body bytes, reusability', () => {
    fc.assert(
      fc.property(responseModel(fc.constantFrom('\r\n' as const, '\n' as const)), split, (model, how) => {
        const bytes = render(model);
        const close = readsUntilClose(model);
        const atOnce = parse(whole(bytes), { close });
        const pieces = parse(piecesOf(bytes, how), { close });

        expect(atOnce.error).toBeUndefined();
        expect(atOnce.cutShort).toBe(false);
        expect(atOnce.outOfOrder).toBe(false);
        expect(atOnce.heads).toHaveLength(1);
        expect(atOnce.heads[0]!.status).toBe(model.status);
        expect(atOnce.body.equals(expectedBody(model))).toBe(true);
        expect(atOnce.ends).toEqual([expectedReusable(model)]);

        expect(pieces.error).toBeUndefined();
        expect(pieces.cutShort).toBe(false);
        expect(pieces.heads).toEqual(atOnce.heads);
        expect(pieces.body.equals(atOnce.body)).toBe(true);
        expect(pieces.ends).toEqual(atOnce.ends);
        expect(pieces.outOfOrder).toBe(false);
      }),
      { numRuns: 400 },
    );
  });

  it('has the status, headers and body Node’s own client reads from the same bytes', async () => {
    await fc.assert(
      fc.asyncProperty(responseModel(fc.constant('\r\n' as const)), async (model) => {
        const bytes = render(model);
        const ours = parse(whole(bytes), { close: readsUntilClose(model) });
        const node = await nodeReads(bytes);
        expect(node.error).toBeUndefined();
        expect(ours.error).toBeUndefined();
        expect(ours.heads[0]!.status).toBe(node.status);
        expect(ours.heads[0]!.headers).toEqual(node.headers);
        expect(ours.body.equals(node.body!)).toBe(true);
      }),
      { numRuns: 30 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------

/** A defect that makes a response impossible to frame. */
type Defect =
  | 'status line'
  | 'carriage return in a header'
  | 'control character in a value'
  | 'obs-fold'
  | 'header name not a token'
  | 'conflicting content-lengths'
  | 'content-length not digits'
  | 'chunk size not hexadecimal'
  | 'chunk longer than its size'
  | 'protocol switch'
  | 'head too large';

const BAD_STATUS_LINES = [
  'HTTP/1.1 2000 OK',
  'HTTP/1.1 20 OK',
  'HTTP/1.1 099 Early',
  'HTTP/1.1 200OK',
  'HTTP/1.1  200 OK',
  ' HTTP/1.1 200 OK',
  'HTTP/1.2 200 OK',
  'HTTP/2 200 OK',
  'HTTP/1.1 200 O\0K',
  'http/1.1 200 OK',
  'ICY 200 OK',
  'HTTP/1.1 -200 OK',
  'HTTP/1.1 2x0 OK',
  '',
];
const BAD_LENGTHS = ['abc', '-1', '+5', '0x10', '1e3', '1.0', '5, 5', '1 2', '', '1234567890123456'];
const BAD_CHUNK_SIZES = ['zz', '-1', '0x5', ' 5', '', 'g', '1 2', '1234567890abc', '5;\0'];

/** A response with `defect`, built around a generated well-formed one. */
const defective = (model: ResponseModel, defect: Defect, pick: number): Buffer => {
  const eol = '\r\n';
  const lines = model.headers.map(([name, value]) => `${name}:${value}`);
  const at = 1 + (pick % (lines.length + 1));
  // A 204 or 304 would have no body to be wrong in.
  let statusLine = `HTTP/1.${model.minor} ${bodiless(model.status) ? 200 : model.status} OK`;
  let body: Buffer = Buffer.from([]);
  const chunks = model.framing.kind === 'chunked' && model.framing.chunks.length > 0 ? model.framing.chunks : undefined;
  const chunked = (badSize: string | undefined, extra: string) => {
    const list = chunks ?? [{ data: latin1('hello'), size: '5', extensions: '' }];
    const index = pick % list.length;
    lines.push('transfer-encoding: chunked');
    body = Buffer.concat([
      ...list.flatMap(({ data, size }, position) => [
        latin1(`${position === index && badSize !== undefined ? badSize : size}${eol}`),
        Buffer.from(data),
        latin1(`${position === index ? extra : ''}${eol}`),
      ]),
      latin1(`0${eol}${eol}`),
    ]);
  };
  switch (defect) {
    case 'status line':
      statusLine = BAD_STATUS_LINES[pick % BAD_STATUS_LINES.length]!;
      lines.push('content-length: 0');
      break;
    case 'carriage return in a header':
      lines.splice(at - 1, 0, 'x-broken: a\rb');
      lines.push('content-length: 0');
      break;
    case 'control character in a value':
      lines.splice(at - 1, 0, `x-broken: a${String.fromCharCode([0, 1, 8, 0x0b, 0x0c, 0x1b, 0x7f][pick % 7]!)}b`);
      lines.push('content-length: 0');
      break;
    case 'obs-fold':
      lines.splice(at - 1, 0, 'x-folded: first', `${pick % 2 ? '\t' : ' '}continued`);
      lines.push('content-length: 0');
      break;
    case 'header name not a token':
      lines.splice(at - 1, 0, ['x bad: 1', 'x(bad): 1', ': empty', 'x-bad : 1', 'x-é: 1', 'no colon'][pick % 6]!);
      lines.push('content-length: 0');
      break;
    case 'conflicting content-lengths':
      lines.push('content-length: 5', `Content-Length: ${6 + (pick % 100)}`);
      body = latin1('hello');
      break;
    case 'content-length not digits':
      lines.push(`content-length: ${BAD_LENGTHS[pick % BAD_LENGTHS.length]}`);
      break;
    case 'chunk size not hexadecimal':
      chunked(BAD_CHUNK_SIZES[pick % BAD_CHUNK_SIZES.length], '');
      break;
    case 'chunk longer than its size':
      chunked(undefined, ['x', 'xy', 'xyz', ' '][pick % 4]!);
      break;
    case 'protocol switch':
      return latin1(`HTTP/1.1 101 Switching Protocols${eol}upgrade: websocket${eol}${eol}`);
    case 'head too large':
      for (let size = 0; size <= MAX_HEAD_BYTES; size += 1_000) lines.push(`x-filler-${size}: ${'f'.repeat(980)}`);
      lines.push('content-length: 0');
      break;
  }
  return Buffer.concat([latin1(`${[statusLine, ...lines].map((line) => `${line}${eol}`).join('')}${eol}`), body]);
};

const DEFECTS: readonly Defect[] = [
  'status line',
  'carriage return in a header',
  'control character in a value',
  'obs-fold',
  'header name not a token',
  'conflicting content-lengths',
  'content-length not digits',
  'chunk size not hexadecimal',
  'chunk longer than its size',
  'protocol switch',
  'head too large',
];

describe('a response that cannot be framed', () => {
  it.each(DEFECTS)('(%s) throws ResponseFramingError, whole or cut anywhere', (defect) => {
    fc.assert(
      fc.property(
        responseModel(fc.constant('\r\n' as const)),
        fc.nat(),
        defect === 'head too large' ? fewCuts : split,
        (model, pick, how) => {
          const bytes = defective(model, defect, pick);
          for (const pieces of [whole(bytes), piecesOf(bytes, how)]) {
            const outcome = parse(pieces, { close: true });
            expect(outcome.error).toBeInstanceOf(ResponseFramingError);
            expect(outcome.ends).toEqual([]);
            expect(outcome.outOfOrder).toBe(false);
          }
        },
      ),
      { numRuns: defect === 'head too large' ? 20 : 100 },
    );
  });

  it('cut short by the connection’s close (in the head, the body, a chunk or the trailers) is told as cut short, without an end', () => {
    const framed = responseModel(fc.constantFrom('\r\n' as const, '\n' as const)).filter(
      (model) => !readsUntilClose(model),
    );
    fc.assert(
      fc.property(framed, fc.nat(), split, (model, cut, how) => {
        const bytes = render(model);
        const prefix = bytes.subarray(0, cut % bytes.length);
        const outcome = parse(piecesOf(prefix, how), { close: true });
        expect(outcome.error).toBeUndefined();
        expect(outcome.cutShort).toBe(true);
        expect(outcome.ends).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('refuses a head one byte over MAX_HEAD_BYTES, and takes one of exactly that size', () => {
    const headOf = (size: number) => {
      const start = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-filler: ';
      const end = '\r\n\r\n';
      return latin1(`${start}${'f'.repeat(size - start.length - end.length)}${end}ok`);
    };
    for (const pieces of [whole(headOf(MAX_HEAD_BYTES)), cutAt(headOf(MAX_HEAD_BYTES), [MAX_HEAD_BYTES - 1])]) {
      const outcome = parse(pieces);
      expect(outcome.error).toBeUndefined();
      expect(outcome.body.toString()).toBe('ok');
    }
    for (const pieces of [whole(headOf(MAX_HEAD_BYTES + 1)), cutAt(headOf(MAX_HEAD_BYTES + 1), [40_000])]) {
      expect(parse(pieces).error).toBeInstanceOf(ResponseFramingError);
    }
  });

  it('refuses trailers over their limit however they are cut', () => {
    // Three trailer lines of 7 000 bytes: each within the line limit (8 KiB), together over the
    // trailer section's (16 KiB).
    const bytes = latin1(
      `HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n${[1, 2, 3]
        .map((n) => `x-trailer-${n}: ${'t'.repeat(7_000)}\r\n`)
        .join('')}\r\n`,
    );
    expect(parse(whole(bytes)).error).toBeInstanceOf(ResponseFramingError);
    const head = bytes.indexOf('0\r\n') + 3;
    // The trailers arriving a few bytes at a time must meet the same limit.
    const trickled = [
      bytes.subarray(0, head),
      ...cutAt(
        bytes.subarray(head),
        Array.from({ length: 30 }, (_, n) => n * 700),
      ),
    ];
    expect(parse(trickled).error).toBeInstanceOf(ResponseFramingError);
  });
});

// ---------------------------------------------------------------------------------------------------

/** Pieces of HTTP that take a fuzzer deep into the parser's states. */
const fragment = fc.oneof(
  fc.constantFrom(
    'HTTP/1.1 200 OK\r\n',
    'HTTP/1.0 200 OK\r\n',
    'HTTP/1.1 100 Continue\r\n\r\n',
    'HTTP/1.1 204 No Content\r\n',
    'content-length: 5\r\n',
    'content-length: 0\r\n',
    'Content-Length: 12\r\n',
    'transfer-encoding: chunked\r\n',
    'transfer-encoding: gzip, chunked\r\n',
    'transfer-encoding: gzip\r\n',
    'connection: close\r\n',
    'connection: keep-alive\r\n',
    'set-cookie: a=1\r\n',
    '\r\n',
    '\n',
    '\r',
    '5\r\nhello\r\n',
    'a;ext=1\r\n',
    '0\r\n',
    '0\r\n\r\n',
    'x-trailer: 1\r\n',
    ':',
    ' ',
    '\t',
    '\0',
  ),
  fc.stringMatching(/^[0-9a-fA-F]{1,14}$/),
  fc.string({ unit: 'binary-ascii', maxLength: 12 }),
);
const fuzzInput = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
  fc
    .array(
      fc.oneof(
        fragment.map(latin1),
        fc.uint8Array({ maxLength: 8 }).map((bytes) => Buffer.from(bytes)),
      ),
      {
        maxLength: 30,
      },
    )
    .map((parts) => Buffer.concat(parts)),
);

describe('arbitrary bytes', () => {
  it('either parse or throw ResponseFramingError, whole or cut anywhere; never another error, never an end out of order', () => {
    fc.assert(
      fc.property(fuzzInput, split, fc.boolean(), fc.boolean(), (bytes, how, close, noBody) => {
        for (const pieces of [whole(bytes), piecesOf(bytes, how)]) {
          const outcome = parse(pieces, { close, noBody });
          if (outcome.error !== undefined) expect(outcome.error).toBeInstanceOf(ResponseFramingError);
          expect(outcome.outOfOrder).toBe(false);
          expect(outcome.heads.length).toBeLessThanOrEqual(1);
          expect(outcome.ends.length).toBeLessThanOrEqual(1);
          // A close either ends the response or says it was cut short, never both.
          if (close && outcome.error === undefined) expect(outcome.ends.length).toBe(outcome.cutShort ? 0 : 1);
        }
      }),
      { numRuns: 3_000 },
    );
  });
});

// ---------------------------------------------------------------------------------------------------

describe('heads without a body, interim heads, and the reuse of the connection', () => {
  const read = (text: string, options: { close?: boolean; noBody?: boolean } = {}) =>
    parse(whole(latin1(text)), options);

  it('skips 1xx interim heads and reads the final response after them', () => {
    const outcome = read(
      'HTTP/1.1 100 Continue\r\n\r\n' +
        'HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n' +
        'HTTP/1.1 102 Processing\r\n\r\n' +
        'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nx-final: yes\r\n\r\nhi',
    );
    expect(outcome.error).toBeUndefined();
    expect(outcome.heads).toEqual([{ status: 200, headers: { 'content-length': '2', 'x-final': 'yes' } }]);
    expect(outcome.body.toString()).toBe('hi');
    expect(outcome.ends).toEqual([true]);
  });

  it('refuses a 101 (never asked for)', () => {
    expect(read('HTTP/1.1 101 Switching Protocols\r\nupgrade: h2c\r\n\r\n').error).toBeInstanceOf(ResponseFramingError);
  });

  it.each([204, 304])('ends a %i at its head, whatever its framing headers say', (status) => {
    for (const framing of ['', 'content-length: 10\r\n', 'transfer-encoding: chunked\r\n']) {
      const outcome = read(`HTTP/1.1 ${status} X\r\n${framing}\r\n`);
      expect(outcome.error).toBeUndefined();
      expect(outcome.heads.map(({ status: code }) => code)).toEqual([status]);
      expect(outcome.body.length).toBe(0);
      expect(outcome.ends).toEqual([true]);
    }
  });

  it('ends the response to a HEAD at its head, whatever its framing headers say', () => {
    for (const framing of ['content-length: 1000\r\n', 'transfer-encoding: chunked\r\n', '']) {
      const outcome = read(`HTTP/1.1 200 OK\r\n${framing}\r\n`, { noBody: true });
      expect(outcome.error).toBeUndefined();
      expect(outcome.ends).toEqual([true]);
    }
  });

  it.each([
    ['HTTP/1.1, content-length', true, 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'],
    ['HTTP/1.1, chunked', true, 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'],
    ['HTTP/1.1, connection: close', false, 'HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok'],
    [
      'HTTP/1.1, Connection: Keep-Alive, Close',
      false,
      'HTTP/1.1 200 OK\r\nConnection: Keep-Alive, Close\r\ncontent-length: 2\r\n\r\nok',
    ],
    [
      'HTTP/1.1, chunked with connection: close',
      false,
      'HTTP/1.1 200 OK\r\nconnection: close\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
    ['HTTP/1.0, no connection header', false, 'HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok'],
    [
      'HTTP/1.0, connection: keep-alive',
      true,
      'HTTP/1.0 200 OK\r\nconnection: keep-alive\r\ncontent-length: 2\r\n\r\nok',
    ],
    ['HTTP/1.0, 204 without keep-alive', false, 'HTTP/1.0 204 No Content\r\n\r\n'],
    [
      'chunked and content-length both',
      false,
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n',
    ],
    // Bytes read with a response, past its end: the connection cannot be trusted with another request.
    ['bytes after a sized body', false, 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokEXTRA'],
    [
      'a head after a chunked body',
      false,
      'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\nHTTP/1.1 200 OK\r\n',
    ],
    ['bytes after a 204', false, 'HTTP/1.1 204 No Content\r\n\r\nstray'],
    ['a line after an empty body', false, 'HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n\r\n'],
  ])('%s: reusable %s', (_, reusable, text) => {
    const outcome = read(text);
    expect(outcome.error).toBeUndefined();
    expect(outcome.ends).toEqual([reusable]);
  });

  it('a body read until the close ends only at the close, not reusable', () => {
    for (const text of [
      'HTTP/1.1 200 OK\r\n\r\nuntil the close',
      'HTTP/1.1 200 OK\r\nconnection: keep-alive\r\n\r\nuntil the close',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\nuntil the close',
    ]) {
      const parser = parse(whole(latin1(text)));
      expect(parser.ends).toEqual([]);
      expect(parser.body.toString()).toBe('until the close');
      const closed = read(text, { close: true });
      expect(closed.error).toBeUndefined();
      expect(closed.cutShort).toBe(false);
      expect(closed.body.toString()).toBe('until the close');
      expect(closed.ends).toEqual([false]);
    }
  });

  it('joins repeated headers as Node does: set-cookie a list, single-valued ones kept first, others with commas', () => {
    const outcome = read(
      'HTTP/1.1 200 OK\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nContent-Type: text/plain\r\ncontent-type: text/html\r\n' +
        'x-many: 1\r\nX-Many: 2\r\nx-many: 3\r\nserver: one\r\nserver: two\r\ncontent-length: 5\r\nContent-Length: 5\r\n\r\nhello',
    );
    expect(outcome.heads[0]!.headers).toEqual({
      'set-cookie': ['a=1', 'b=2'],
      'content-type': 'text/plain',
      'x-many': '1, 2, 3',
      server: 'one',
      'content-length': '5',
    });
  });
});

describe('header values as Node’s IncomingMessage reads them', () => {
  // Each compares with what Node's own client reads from the same bytes.
  it('joins repeated cookie headers with "; "', async () => {
    const bytes = latin1('HTTP/1.1 200 OK\r\ncookie: a=1\r\ncookie: b=2\r\ncontent-length: 0\r\n\r\n');
    const node = await nodeReads(bytes);
    expect(node.headers!.cookie).toBe('a=1; b=2');
    expect(parse(whole(bytes)).heads[0]!.headers.cookie).toBe(node.headers!.cookie);
  });

  it('keeps a no-break space (0xA0, obs-text) at the edges of a value: only spaces and tabs are whitespace', async () => {
    const bytes = latin1('HTTP/1.1 200 OK\r\nx-edge: \xa0value\xa0 \r\ncontent-length: 0\r\n\r\n');
    const node = await nodeReads(bytes);
    expect(node.headers!['x-edge']).toBe('\xa0value\xa0');
    expect(parse(whole(bytes)).heads[0]!.headers['x-edge']).toBe(node.headers!['x-edge']);
  });

  it('refuses a control character at the edge of a value (vertical tab, form feed), as it does inside one', async () => {
    for (const value of ['v\x0b', '\x0cv', 'v\x0b\x0c']) {
      const bytes = latin1(`HTTP/1.1 200 OK\r\nx-edge: ${value}\r\ncontent-length: 0\r\n\r\n`);
      expect((await nodeReads(bytes)).error).toMatch(/Invalid header value char/);
      expect(parse(whole(bytes)).error).toBeInstanceOf(ResponseFramingError);
    }
  });
});
