import type {
  BatchWriteItemCommandInput,
  BatchWriteItemCommandOutput,
  PutItemCommandInput,
  PutItemCommandOutput,
  UpdateItemCommandInput,
  UpdateItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { HttpRequest, HttpResponse, RequestSigner } from '@smithy/types';
import { noteAwsCall } from '../aws/aws-call-observer.js';
import { store } from './client.js';

/**
 * The writes every request makes (usage records, rate-limit charges, counter and spend additions),
 * sent as prepared DynamoDB calls: the endpoint, the signer and the connection pool are the store
 * client's own, resolved once, and each call is only its JSON body, a Signature V4 signature and one
 * HTTP exchange. The SDK's per-call pipeline (a middleware chain copied per command, endpoint rules
 * evaluated with a copy of the client's configuration, schema-driven serialisation, identity and
 * auth-scheme resolution) cost about as much CPU again as the call itself; see docs/cost.md.
 *
 * Inputs are in attribute-value form already (`attribute-values.ts`), which is exactly DynamoDB's
 * JSON protocol; outputs come back in the same form, as the low-level client returns them. Errors
 * carry the service's exception name (`ConditionalCheckFailedException`,
 * `ProvisionedThroughputExceededException`, …), `$fault` and `$metadata`, as the SDK's do. Throttling
 * is retried by the callers, with their own backoff; server faults and dropped connections are
 * retried here as the SDK's standard mode does, and a signature refused for a skewed clock is sent
 * again on the service's time.
 */

interface Operations {
  PutItem: { input: PutItemCommandInput; output: Omit<PutItemCommandOutput, '$metadata'> };
  UpdateItem: { input: UpdateItemCommandInput; output: Omit<UpdateItemCommandOutput, '$metadata'> };
  BatchWriteItem: { input: BatchWriteItemCommandInput; output: Omit<BatchWriteItemCommandOutput, '$metadata'> };
}

export type DirectOperation = keyof Operations;

/** The parts of the store client's resolved configuration a prepared call uses. */
interface StoreClientConfig {
  readonly region: () => Promise<string>;
  readonly isCustomEndpoint?: boolean;
  readonly endpoint?: () => Promise<{ protocol: string; hostname: string; port?: number; path: string }>;
  readonly useFipsEndpoint: () => Promise<boolean>;
  readonly useDualstackEndpoint: () => Promise<boolean>;
  readonly endpointProvider: (params: Record<string, unknown>) => { url: URL };
  readonly signer: (authScheme?: Record<string, unknown>) => Promise<RequestSigner>;
  readonly systemClockOffset?: number;
  readonly requestHandler: {
    handle(request: HttpRequest, options?: Record<string, unknown>): Promise<{ response: HttpResponse }>;
  };
}

interface Prepared {
  readonly config: StoreClientConfig;
  readonly url: URL;
  readonly signer: RequestSigner;
}

/** The JSON protocol version DynamoDB's operations are addressed with (`X-Amz-Target`). */
const TARGET_PREFIX = 'DynamoDB_20120810.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';

let preparedFor: DynamoDBDocumentClient | undefined;
let prepared: Promise<Prepared> | undefined;

const configOf = (client: DynamoDBDocumentClient) => client.config as unknown as StoreClientConfig;

/** Where the client sends and how it signs: the SDK's own endpoint rules and signer, asked once. */
const prepare = async (config: StoreClientConfig): Promise<Prepared> => {
  const region = await config.region();
  let custom: string | undefined;
  if (config.isCustomEndpoint && config.endpoint) {
    const { protocol, hostname, port, path } = await config.endpoint();
    custom = `${protocol}//${hostname}${port ? `:${port}` : ''}${path}`;
  }
  const { url } = config.endpointProvider({
    Region: region,
    UseFIPS: await config.useFipsEndpoint(),
    UseDualStack: await config.useDualstackEndpoint(),
    ...(custom ? { Endpoint: custom } : {}),
  });
  const signer = await config.signer({ name: 'sigv4', signingName: 'dynamodb', signingRegion: region, properties: {} });
  return { config, url, signer };
};

/** The prepared parts for the current store client (tests and the local runtime replace it). */
const preparedParts = (): Promise<Prepared> => {
  const client = store();
  if (client !== preparedFor || !prepared) {
    preparedFor = client;
    prepared = prepare(configOf(client));
    // A failed preparation (credentials not there yet) is tried again by the next call.
    prepared.catch(() => {
      if (preparedFor === client) prepared = undefined;
    });
  }
  return prepared;
};

/**
 * Binary attribute values (`B`, `BS`) travel as base64, as the SDK writes them. The holder's own
 * value is read: JSON.stringify hands a replacer a Buffer already turned into `{ type, data }`.
 */
function binaryAsBase64(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const original = this[key];
  return original instanceof Uint8Array
    ? Buffer.from(original.buffer, original.byteOffset, original.byteLength).toString('base64')
    : value;
}

/** Whether any binary value is inside: the hot writes never hold one, and a replacer slows every JSON node. */
const holdsBinary = (value: unknown): boolean => {
  if (typeof value !== 'object' || value === null) return false;
  if (ArrayBuffer.isView(value)) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (holdsBinary(item)) return true;
    return false;
  }
  for (const key in value) if (holdsBinary((value as Record<string, unknown>)[key])) return true;
  return false;
};

/** The request body: DynamoDB's JSON protocol is the input as it is, binary values in base64. */
const bodyOf = (input: object): string =>
  holdsBinary(input) ? JSON.stringify(input, binaryAsBase64) : JSON.stringify(input);

/** The answer's body as text: the request handler hands it over as a Node stream of buffers. */
const readBody = (body: NodeJS.ReadableStream): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    body.on('data', (chunk: Buffer) => chunks.push(chunk));
    body.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    body.on('error', reject);
  });

/** Fields of an error answer that are not copied onto the error: its own, and what would reshape the object. */
const RESERVED_FIELDS = new Set([
  '__type',
  'message',
  'Message',
  'name',
  'stack',
  'cause',
  '$fault',
  '$metadata',
  'serverDate',
  '__proto__',
  'constructor',
  'prototype',
]);

/** A DynamoDB error answer, shaped as the SDK's service exceptions are. */
export class StoreServiceError extends Error {
  readonly $fault: 'client' | 'server';
  readonly $metadata: { readonly httpStatusCode: number; readonly requestId?: string };
  /** The service's clock (its `Date` header, when no cache stood between): for correcting a skewed one. */
  readonly serverDate?: string;

  constructor(status: number, headers: Record<string, string | undefined>, text: string) {
    let fields: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object') fields = parsed as Record<string, unknown>;
    } catch {
      // Not JSON (a proxy's error page): the status alone says what happened.
    }
    const type = String(fields.__type ?? headers['x-amzn-errortype'] ?? '');
    const name = type.split('#').pop()!.split(':')[0] || (status >= 500 ? 'InternalServerError' : 'UnknownError');
    const message = fields.message ?? fields.Message;
    super(typeof message === 'string' ? message : name);
    for (const [field, value] of Object.entries(fields)) {
      if (!RESERVED_FIELDS.has(field)) (this as Record<string, unknown>)[field] = value;
    }
    this.name = name;
    this.$fault = status >= 500 ? 'server' : 'client';
    this.$metadata = { httpStatusCode: status, requestId: headers['x-amzn-requestid'] };
    if (headers.date && headers.age === undefined) this.serverDate = headers.date;
  }
}

const TRANSIENT_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT']);
const TRANSIENT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

/** What the SDK's standard retry mode retries besides throttling: server faults and lost connections. */
const isTransient = (error: unknown): boolean => {
  if (error instanceof StoreServiceError) return error.$fault === 'server';
  const { code, name } = (error ?? {}) as { code?: string; name?: string };
  return TRANSIENT_CODES.has(code ?? '') || TRANSIENT_NAMES.has(name ?? '');
};

/** The SDK's standard mode: three attempts, full-jitter backoff from 100 ms. */
const ATTEMPTS = 3;
const BASE_DELAY_MS = 100;

const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Errors that a signature dated by a wrong clock gets (the SDK's list). */
const CLOCK_SKEW_ERRORS = new Set([
  'AuthFailure',
  'InvalidSignatureException',
  'RequestExpired',
  'RequestInTheFuture',
  'RequestTimeTooSkewed',
  'SignatureDoesNotMatch',
]);

/** A skew below this is within what Signature V4 accepts (5 minutes), as the SDK judges it. */
const SKEW_WORTH_CORRECTING_MS = 240_000;

/**
 * A signature refused for its date, answered with the service's own clock: the client's clock offset
 * is set from it, as the SDK sets it (the document client's calls read the same offset), and the call
 * is worth another attempt when the offset moved by more than the signature's tolerance.
 */
const correctedClock = (error: unknown, config: StoreClientConfig): boolean => {
  if (!(error instanceof StoreServiceError) || !CLOCK_SKEW_ERRORS.has(error.name) || !error.serverDate) return false;
  const serverTime = Date.parse(error.serverDate);
  if (Number.isNaN(serverTime)) return false;
  const before = config.systemClockOffset ?? 0;
  const offset = serverTime - Date.now();
  (config as { systemClockOffset?: number }).systemClockOffset = offset;
  return Math.abs(offset - before) >= SKEW_WORTH_CORRECTING_MS;
};

const sendOnce = async ({ config, url, signer }: Prepared, operation: DirectOperation, body: string) => {
  const request: HttpRequest = {
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: {},
    headers: {
      'content-type': CONTENT_TYPE,
      'x-amz-target': `${TARGET_PREFIX}${operation}`,
      'content-length': String(Buffer.byteLength(body)),
      host: url.host,
    },
    body,
  };
  const signed = await signer.sign(request, { signingDate: new Date(Date.now() + (config.systemClockOffset ?? 0)) });
  const { response } = await config.requestHandler.handle(signed as HttpRequest);
  const text = await readBody(response.body as NodeJS.ReadableStream);
  if (response.statusCode < 200 || response.statusCode >= 300) {
    throw new StoreServiceError(response.statusCode, response.headers, text);
  }
  return (text ? JSON.parse(text) : {}) as unknown;
};

/** Sends one DynamoDB operation with an input in attribute-value form; resolves with its output. */
export const sendDirect = async <Operation extends DirectOperation>(
  operation: Operation,
  input: Operations[Operation]['input'],
): Promise<Operations[Operation]['output']> => {
  noteAwsCall('DynamoDBClient', operation, input);
  const body = bodyOf(input);
  for (let attempt = 1; ; attempt += 1) {
    const parts = await preparedParts();
    try {
      return (await sendOnce(parts, operation, body)) as Operations[Operation]['output'];
    } catch (error) {
      if (attempt >= ATTEMPTS) throw error;
      if (correctedClock(error, parts.config)) continue;
      if (!isTransient(error)) throw error;
      await pause(Math.random() * BASE_DELAY_MS * 2 ** (attempt - 1));
    }
  }
};
