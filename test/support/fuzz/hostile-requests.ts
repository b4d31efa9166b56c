import fc from 'fast-check';
import type { RouteDefinition } from '../../../functions/shared/routes.js';
import { pathParameterSamples, sampleBody, type FuzzTargets } from './route-samples.js';

export interface HostileRequest {
  readonly method: string;
  /** Path and query string, exactly as they go on the request line. */
  readonly target: string;
  readonly headers: Record<string, string>;
  readonly body: Buffer | undefined;
}

/** Names that are also Object.prototype's: a plain `{}` keyed by them misbehaves. */
export const PROTOTYPE_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  '__defineGetter__',
];

const MALFORMED_ESCAPES = ['%', '%zz', '%E0%A4%A', '%C0%AF', '%ED%A0%80', '%FF', '%00'];

const NUMBERS_OUT_OF_RANGE = [
  1e300,
  -1e300,
  -1,
  0,
  1.5,
  -0.5,
  Number.MAX_SAFE_INTEGER + 2,
  2 ** 64,
  // Below the smallest magnitude the store holds (1e-130), down to the smallest double.
  5e-324,
  -1e-200,
  1e-131,
  'NaN',
  'Infinity',
  '-Infinity',
  '1e999',
  '',
];

const token = fc.string({
  unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789-_'.split('')),
  minLength: 1,
  maxLength: 12,
});

/** Text for a path segment or query value: plain, percent-encoded, or malformed. */
const segmentText = fc.oneof(
  token,
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.constantFrom(...MALFORMED_ESCAPES),
  fc.string({ maxLength: 20 }).map((text) => encodeURIComponent(text)),
  fc.string({ unit: 'binary', maxLength: 10 }).map((text) => encodeURIComponent(text)),
  fc.constant('a'.repeat(3000)),
);

const fillPath = (route: RouteDefinition, targets: FuzzTargets): fc.Arbitrary<string> => {
  const parts = route.path.split('/').map((segment) => {
    const parameter = /^\{(.+)\}$/.exec(segment);
    if (!parameter) return fc.constant(segment);
    const known = pathParameterSamples(parameter[1]!, targets);
    return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 2, arbitrary: segmentText });
  });
  return fc
    .tuple(fc.tuple(...parts), fc.constantFrom('', '', '', '/', '/extra', `/${MALFORMED_ESCAPES[1]}`))
    .map(([segments, suffix]) => `${segments.join('/')}${suffix}`);
};

const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(
        token,
        fc.constantFrom(...PROTOTYPE_NAMES),
        fc.constantFrom('key', 'alt', 'accountId', 'keyId', 'from', 'to', 'limit', 'cursor'),
      ),
      fc.oneof(segmentText, fc.constantFrom('sse', '2026-01-01T00:00:00Z', '1999-01-01T00:00:00Z', '1e300', '-1', '0')),
    ),
    { maxLength: 5 },
  )
  .map((pairs) => (pairs.length === 0 ? '' : `?${pairs.map(([name, value]) => `${name}=${value}`).join('&')}`));

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'FUZZ'];

/** Header values node's client will send: printable ASCII and Latin-1 bytes, no line breaks. */
const headerValue = fc.oneof(
  token,
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((code) => code !== 0x7f)
      .map((code) => String.fromCharCode(code)),
    maxLength: 40,
  }),
  fc.constant('x'.repeat(4000)),
);

const extraHeaders = fc.dictionary(
  fc.oneof(
    token,
    fc.constantFrom(...PROTOTYPE_NAMES),
    // Every header the gateway reads, and some it only passes by.
    fc.constantFrom(
      'content-type',
      'anthropic-version',
      'anthropic-beta',
      'authorization',
      'x-api-key',
      'x-goog-api-key',
      'origin',
      'host',
      'x-forwarded-proto',
      'accept',
      'x-request-id',
      'x-forwarded-for',
    ),
  ),
  headerValue,
  { maxKeys: 4 },
);

/** How the key travels, or that it does not, or that a wrong one does. */
const authentication = (key: string) =>
  fc.constantFrom<Record<string, string>>(
    { authorization: `Bearer ${key}` },
    { authorization: `Bearer ${key}` },
    { 'x-api-key': key },
    { 'x-goog-api-key': key },
    {},
    { authorization: 'Bearer sk-not-a-key' },
    { authorization: `Basic ${key}` },
  );

/** Replaces the value at one place of a JSON value with something hostile. */
export const mutate = (value: unknown, replacement: unknown, pick: number): unknown => {
  if (value === null || typeof value !== 'object') return replacement;
  const entries = Object.entries(value);
  if (entries.length === 0) return replacement;
  const [name, inner] = entries[pick % entries.length]!;
  const deeper = pick % 3 === 0 ? replacement : mutate(inner, replacement, Math.floor(pick / 3));
  if (Array.isArray(value)) {
    const copy = [...value];
    copy[Number(name)] = deeper;
    return copy;
  }
  return { ...value, [name]: deeper };
};

export const hostileValue = fc.oneof(
  fc.constantFrom<unknown>(...NUMBERS_OUT_OF_RANGE, null, true, [], {}, 'x'.repeat(5000)),
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(...PROTOTYPE_NAMES).map((name) => JSON.parse(`{"${name}":{"polluted":true}}`) as unknown),
);

const nested = (depth: number, open: string, close: string, leaf: string) =>
  `${open.repeat(depth)}${leaf}${close.repeat(depth)}`;

const bodyText = (sample: Record<string, unknown> | undefined): fc.Arbitrary<Buffer | undefined> => {
  const sampleText = JSON.stringify(sample ?? {});
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(Buffer.from(sampleText)) },
    {
      weight: 6,
      arbitrary: fc
        .tuple(hostileValue, fc.nat())
        .map(([replacement, pick]) => Buffer.from(JSON.stringify(mutate(sample ?? {}, replacement, pick)))),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(...PROTOTYPE_NAMES), hostileValue)
        .map(([name, value]) =>
          Buffer.from(
            `${sampleText.slice(0, -1)}${sampleText.length > 2 ? ',' : ''}"${name}":${JSON.stringify(value) ?? 'null'}}`,
          ),
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .integer({ min: 100, max: 20_000 })
        .map((depth) =>
          Buffer.from(
            `${sampleText.slice(0, -1)}${sampleText.length > 2 ? ',' : ''}"deep":${nested(depth, '{"a":', '}', '1')}}`,
          ),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 100, max: 50_000 }).map((depth) => Buffer.from(nested(depth, '[', ']', ''))),
    },
    { weight: 1, arbitrary: fc.nat({ max: sampleText.length }).map((cut) => Buffer.from(sampleText.slice(0, cut))) },
    {
      weight: 1,
      arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => Buffer.from(JSON.stringify(value) ?? 'null')),
    },
    {
      weight: 1,
      arbitrary: fc
        .uint8Array({ maxLength: 64 })
        .map((bytes) =>
          Buffer.concat([Buffer.from('{"model":"'), Buffer.from(bytes), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
        ),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        Buffer.alloc(0),
        undefined,
        Buffer.from('null'),
        Buffer.from('"text"'),
        Buffer.from('1e999'),
      ),
    },
  );
};

/** Requests aimed at one route, from nearly valid to plainly hostile, carrying `key` most of the time. */
export const hostileRequests = (
  route: RouteDefinition,
  key: string,
  targets: FuzzTargets,
): fc.Arbitrary<HostileRequest> =>
  fc
    .record({
      method: fc.oneof(
        { weight: 4, arbitrary: fc.constant(route.method) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      path: fillPath(route, targets),
      query: queryString,
      auth: authentication(key),
      headers: extraHeaders,
      contentType: fc.constantFrom(
        'application/json',
        'application/json',
        'text/plain',
        'application/octet-stream',
        'application/json; charset=latin1',
      ),
      body: bodyText(sampleBody(route, targets)),
    })
    .map(({ method, path, query, auth, headers, contentType, body }) => ({
      method,
      target: `${path}${query}`,
      headers: { 'content-type': contentType, ...headers, ...auth },
      body,
    }));
