import type {
  BatchGetItemCommandInput,
  BatchGetItemCommandOutput,
  BatchWriteItemCommandInput,
  BatchWriteItemCommandOutput,
  DeleteItemCommandInput,
  DeleteItemCommandOutput,
  GetItemCommandInput,
  GetItemCommandOutput,
  PutItemCommandInput,
  PutItemCommandOutput,
  QueryCommandInput,
  QueryCommandOutput,
  ScanCommandInput,
  ScanCommandOutput,
  UpdateItemCommandInput,
  UpdateItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { noteAwsCall, noteAwsCallLazily } from '../aws/aws-call-observer.js';
import { storeConnection, type SdkConnection, type SignedConnection } from './connection.js';
import { signRequest } from './store-signing.js';
import { isThrottled } from './throttle-retry.js';
import { storeUnavailable } from './store-unavailable.js';
import { parseJson } from '../http/parse-json.js';
import { bodyText } from '../http/client/response-body.js';

/**
 * Every DynamoDB call the functions make, on DynamoDB's JSON protocol: the body is the input as it
 * is, signed with Signature V4 and sent over the connection's keep-alive handler (`connection.ts`;
 * where the SDK must resolve the store, its client sends the same input instead).
 * The SDK's per-call pipeline (a middleware chain copied per command, endpoint rules evaluated with a
 * copy of the client's configuration, schema-driven serialisation, identity and auth-scheme
 * resolution) cost about as much CPU again as the call itself; see docs/cost.md.
 *
 * Inputs are in attribute-value form (`attribute-values.ts`, or `documents.ts` for plain items);
 * outputs come back in the same form, as the SDK's low-level client returns them. Errors carry the
 * service's exception name (`ConditionalCheckFailedException`, `ProvisionedThroughputExceededException`,
 * …), `$fault` and `$metadata`, as the SDK's do. Server faults and dropped connections are retried as
 * the SDK's standard mode retries them, and so is throttling unless the caller retries it with its
 * own, longer backoff; a signature refused for a skewed clock is sent again on the service's time.
 */

interface Operations {
  GetItem: { input: GetItemCommandInput; output: Omit<GetItemCommandOutput, '$metadata'> };
  PutItem: { input: PutItemCommandInput; output: Omit<PutItemCommandOutput, '$metadata'> };
  UpdateItem: { input: UpdateItemCommandInput; output: Omit<UpdateItemCommandOutput, '$metadata'> };
  DeleteItem: { input: DeleteItemCommandInput; output: Omit<DeleteItemCommandOutput, '$metadata'> };
  Query: { input: QueryCommandInput; output: Omit<QueryCommandOutput, '$metadata'> };
  Scan: { input: ScanCommandInput; output: Omit<ScanCommandOutput, '$metadata'> };
  BatchGetItem: { input: BatchGetItemCommandInput; output: Omit<BatchGetItemCommandOutput, '$metadata'> };
  BatchWriteItem: { input: BatchWriteItemCommandInput; output: Omit<BatchWriteItemCommandOutput, '$metadata'> };
}

export type StoreOperation = keyof Operations;
export type OperationInput<Operation extends StoreOperation> = Operations[Operation]['input'];
export type OperationOutput<Operation extends StoreOperation> = Operations[Operation]['output'];

/** The JSON protocol version DynamoDB's operations are addressed with (`X-Amz-Target`). */
const TARGET_PREFIX = 'DynamoDB_20120810.';
const CONTENT_TYPE = 'application/x-amz-json-1.0';

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

/** Whether any binary value is inside. */
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

/**
 * A member named `B` or `BS` in the serialized input: every binary value sits under one, and a
 * string cannot hold the pattern (its quotes are escaped), so text without it holds no binary value.
 */
const BINARY_MEMBER = /"BS?":/;

/**
 * An input (or a part of one) as DynamoDB's JSON protocol takes it: as it is, binary values in base64. The hot
 * writes never hold one, and a replacer slows every JSON node: the input is serialized plainly, and
 * again with the replacer only when the text names a binary member and the input holds a binary value.
 * Serializing first and searching the text costs a sixth of walking the input for binary values.
 */
export const storeJson = (input: object): string => {
  const text = JSON.stringify(input);
  return BINARY_MEMBER.test(text) && holdsBinary(input) ? JSON.stringify(input, binaryAsBase64) : text;
};

/** A binary attribute value as it travels (`{"B": base64}`, `{"BS": [base64, …]}`), as bytes. */
function binaryAsBytes(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (keys.length !== 1) return value;
  const { B, BS } = value as { B?: unknown; BS?: unknown };
  if (typeof B === 'string') return { B: Buffer.from(B, 'base64') };
  if (Array.isArray(BS) && BS.every((entry) => typeof entry === 'string')) {
    return { BS: BS.map((entry: string) => Buffer.from(entry, 'base64')) };
  }
  return value;
}

/**
 * An answer's body (or a part serialized with `storeJson`) in attribute-value form, binary values as
 * bytes as the SDK gives them. Only text that can hold one pays for the reviver.
 */
export const fromStoreJson = (text: string): unknown => {
  if (!text) return {};
  return BINARY_MEMBER.test(text) ? parseJson(text, binaryAsBytes) : parseJson(text);
};

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
      const parsed: unknown = parseJson(text);
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

/**
 * Network failures worth another attempt: connections refused, reset or timed out, as the SDK lists
 * them, and a store whose name does not resolve (`ENOTFOUND`, or `EAI_AGAIN` while the resolver is
 * down) or whose address cannot be routed to for now (`EHOSTUNREACH`, `ENETUNREACH`, and their
 * `DOWN` kin): all pass, and none is the gateway's bug, so each ends as the store being out of reach.
 */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
]);
const TRANSIENT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException']);

/** What the SDK's standard retry mode retries besides throttling: server faults and lost connections. */
const isTransient = (error: unknown): boolean => {
  if (error instanceof StoreServiceError) return error.$fault === 'server';
  const { code, name } = (error ?? {}) as { code?: string; name?: string };
  return TRANSIENT_CODES.has(code ?? '') || TRANSIENT_NAMES.has(name ?? '');
};

/** The SDK's standard mode: three attempts, full-jitter backoff from 100 ms (500 ms after throttling). */
const ATTEMPTS = 3;
const BASE_DELAY_MS = 100;
const THROTTLED_BASE_DELAY_MS = 500;

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
 * A signature refused for its date, answered with the service's own clock: the connection's clock
 * offset is set from it, as the SDK sets its own, and the call is worth another attempt when the
 * offset moved by more than the signature's tolerance.
 */
const correctedClock = (error: unknown, connection: SignedConnection): boolean => {
  if (!(error instanceof StoreServiceError) || !CLOCK_SKEW_ERRORS.has(error.name) || !error.serverDate) return false;
  const serverTime = Date.parse(error.serverDate);
  if (Number.isNaN(serverTime)) return false;
  const before = connection.clockOffsetMs;
  const offset = serverTime - Date.now();
  connection.clockOffsetMs = offset;
  return Math.abs(offset - before) >= SKEW_WORTH_CORRECTING_MS;
};

const sendOnce = async (connection: SignedConnection, operation: string, body: string) => {
  const { url } = connection;
  const request = {
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    headers: {
      'content-type': CONTENT_TYPE,
      'x-amz-target': `${TARGET_PREFIX}${operation}`,
      'content-length': String(Buffer.byteLength(body)),
      host: url.host,
    } as Record<string, string>,
    body,
  };
  // Without credentials no call can be signed: the store is out of reach as surely as when it is down.
  const credentials = await connection.credentials().catch((error: unknown) => {
    throw storeUnavailable(error);
  });
  signRequest(request, credentials, connection.region, 'dynamodb', new Date(Date.now() + connection.clockOffsetMs));
  const { response } = await connection.handler.handle(request);
  const text = await bodyText(response.body);
  if (response.statusCode < 200 || response.statusCode >= 300) {
    throw new StoreServiceError(response.statusCode, response.headers, text);
  }
  return fromStoreJson(text);
};

export interface SendOptions {
  /** The caller retries throttling itself, with its own backoff (bookkeeping writes): one attempt for it here. */
  readonly throttlingRetriedByCaller?: boolean;
}

/** A call through the SDK's client, whose network failures past its own retries are the store being out of reach. */
const sendThroughSdk = (connection: SdkConnection, operation: string, input: object): Promise<object> =>
  connection.send(operation, input).catch((error: unknown) => {
    throw isTransient(error) && !(error instanceof StoreServiceError) ? storeUnavailable(error) : error;
  });

/** Sends one DynamoDB operation with an input in attribute-value form; resolves with its output. */
export const sendOperation = async <Operation extends StoreOperation>(
  operation: Operation,
  input: OperationInput<Operation>,
  options?: SendOptions,
): Promise<OperationOutput<Operation>> => {
  noteAwsCall('DynamoDBClient', operation, input);
  const connection = await storeConnection();
  // The SDK's client retries as its standard mode does, throttling included.
  if (connection.kind === 'sdk')
    return (await sendThroughSdk(connection, operation, input)) as OperationOutput<Operation>;
  return (await sendSigned(connection, operation, input, options)) as OperationOutput<Operation>;
};

/**
 * Sends an operation whose input is already serialized (`storeJson`): for writes queued as text and
 * sent together later (`batched-puts.ts`), so that what waits in a queue is one string, not an
 * attribute map's many objects. `describe` gives the input's object form, built only for a test's
 * observer or the SDK's client.
 */
export const sendSerialized = async <Operation extends StoreOperation>(
  operation: Operation,
  body: string,
  describe: () => OperationInput<Operation>,
  options?: SendOptions,
): Promise<OperationOutput<Operation>> => {
  noteAwsCallLazily('DynamoDBClient', operation, describe);
  const connection = await storeConnection();
  if (connection.kind === 'sdk')
    return (await sendThroughSdk(connection, operation, describe())) as OperationOutput<Operation>;
  return (await sendSignedBody(connection, operation, body, options)) as OperationOutput<Operation>;
};

/**
 * Sends any DynamoDB operation (`operation` as DynamoDB names it) over a signed connection, with the
 * retries above: for the local runtime's table setup (`ListTables`, `CreateTable`), which is no
 * function's call.
 */
export const sendSigned = (
  connection: SignedConnection,
  operation: string,
  input: object,
  options?: SendOptions,
): Promise<unknown> => sendSignedBody(connection, operation, storeJson(input), options);

const sendSignedBody = async (
  connection: SignedConnection,
  operation: string,
  body: string,
  options?: SendOptions,
): Promise<unknown> => {
  const retryThrottling = !options?.throttlingRetriedByCaller;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await sendOnce(connection, operation, body);
    } catch (error) {
      // Throttling stays itself past the retries: its callers retry it longer, or answer a 429.
      if (attempt >= ATTEMPTS) throw isTransient(error) ? storeUnavailable(error) : error;
      if (correctedClock(error, connection)) continue;
      const throttled = retryThrottling && isThrottled(error);
      if (!throttled && !isTransient(error)) throw error;
      await pause(Math.random() * (throttled ? THROTTLED_BASE_DELAY_MS : BASE_DELAY_MS) * 2 ** (attempt - 1));
    }
  }
};

/** For the bookkeeping writes, which retry throttling with `retryThrottled`'s longer backoff. */
export const THROTTLING_RETRIED_HERE: SendOptions = Object.freeze({ throttlingRetriedByCaller: true });
