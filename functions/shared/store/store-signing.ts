import { createHmac, createSecretKey, hash, type KeyObject } from 'node:crypto';

/**
 * Signature Version 4 for the store's calls: a POST of a JSON body to one endpoint, every header of
 * which is signed. It is written out here rather than taken from `@smithy/signature-v4` because of how
 * a bundle is split: that package reaches `@smithy/core`'s module indexes, and whatever the SDK's
 * DynamoDB client (the fallback chunk) also reaches through them would be loaded at every cold start,
 * about 50 KB of protocol code no signed call runs. `test/unit/store-signing.test.ts` holds each
 * signature to that package's.
 */

export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

/** The parts of a request that are signed; `headers` gets the date, payload hash, token and authorization. */
export interface RequestToSign {
  readonly method: string;
  /** As the URL has it: already percent-encoded once. */
  readonly path: string;
  /** Named in lower case, as HTTP/1.1 sends them here; every one is signed. */
  readonly headers: Record<string, string>;
  readonly body: string;
}

const ALGORITHM = 'AWS4-HMAC-SHA256';

// One-shot hashing: a third of the cost of a Hash object for inputs this small.
const sha256Hex = (data: string) => hash('sha256', data, 'hex');

/** Signing keys change once a day per region and service: derived once each, kept as key objects. */
const signingKeys = new Map<string, KeyObject>();
const KEYS_KEPT = 16;

const signingKeyFor = (secret: string, day: string, region: string, service: string): KeyObject => {
  const id = `${day}/${region}/${service}/${secret}`;
  let key = signingKeys.get(id);
  if (!key) {
    const dayKey = createHmac('sha256', `AWS4${secret}`).update(day).digest();
    const regionKey = createHmac('sha256', dayKey).update(region).digest();
    const serviceKey = createHmac('sha256', regionKey).update(service).digest();
    key = createSecretKey(createHmac('sha256', serviceKey).update('aws4_request').digest());
    if (signingKeys.size >= KEYS_KEPT) signingKeys.clear();
    signingKeys.set(id, key);
  }
  return key;
};

/** RFC 3986 escaping, as Signature V4 wants it (encodeURIComponent leaves `!'()*` alone). */
const escapeUri = (text: string) =>
  encodeURIComponent(text).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

/** The canonical path of every service but S3: dot segments resolved, then escaped again. */
const canonicalPath = (path: string): string => {
  const segments: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') segments.pop();
    else segments.push(segment);
  }
  const normalized = `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${segments.length > 0 && path.endsWith('/') ? '/' : ''}`;
  return escapeUri(normalized).replace(/%2F/g, '/');
};

/** Runs of spaces and tabs as one space, line breaks as spaces, trimmed; most values need none of it. */
const canonicalValue = (value: string): string =>
  /[\r\n\t]| {2}|^ | $/.test(value)
    ? value
        .replace(/[\r\n]/g, ' ')
        .replace(/[ \t]+/g, ' ')
        .trim()
    : value;

/** The last second written as an `x-amz-date`: every store call signs, and most in the same second. */
let lastSecond = Number.NaN;
let lastAmzDate = '';

/** `20261126T054500Z` */
const amzDateOf = (date: Date): string => {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== lastSecond) {
    lastAmzDate = date
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    lastSecond = second;
  }
  return lastAmzDate;
};

/** Signs `request` in place for `service` in `region` at `date`; the payload's hash is signed too. */
export const signRequest = (
  request: RequestToSign,
  credentials: SigningCredentials,
  region: string,
  service: string,
  date: Date,
): void => {
  const amzDate = amzDateOf(date);
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256Hex(request.body);
  const { headers } = request;
  headers['x-amz-date'] = amzDate;
  headers['x-amz-content-sha256'] = payloadHash;
  if (credentials.sessionToken) headers['x-amz-security-token'] = credentials.sessionToken;
  const names = Object.keys(headers).sort();
  let canonicalHeaders = '';
  for (const name of names) canonicalHeaders += `${name}:${canonicalValue(headers[name]!)}\n`;
  const signedHeaders = names.join(';');
  const canonicalRequest = `${request.method}\n${canonicalPath(request.path)}\n\n${canonicalHeaders}\n${signedHeaders}\n${payloadHash}`;
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = `${ALGORITHM}\n${amzDate}\n${scope}\n${sha256Hex(canonicalRequest)}`;
  const signature = createHmac('sha256', signingKeyFor(credentials.secretAccessKey, day, region, service))
    .update(stringToSign)
    .digest('hex');
  headers.authorization = `${ALGORITHM} Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
};
