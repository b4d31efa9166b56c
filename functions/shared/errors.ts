/**
 * The gateway's error family. Everything thrown in a handler ends up as one of these, and
 * `functions/shared/http/error-response.ts` turns it into the client's envelope in one place.
 */
export interface GatewayErrorOptions {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param?: string | null;
  /** Whether `message` may reach the client. Unexposed errors get a generic text. */
  readonly expose?: boolean;
  readonly headers?: Readonly<Record<string, string>>;
  readonly cause?: unknown;
}

export class GatewayError extends Error {
  readonly status: number;
  readonly type: string;
  readonly code: string | null;
  readonly param: string | null;
  readonly expose: boolean;
  readonly headers: Readonly<Record<string, string>>;

  constructor(message: string, options: GatewayErrorOptions) {
    super(message, { cause: options.cause });
    this.name = 'GatewayError';
    this.status = options.status;
    this.type = options.type;
    this.code = options.code;
    this.param = options.param ?? null;
    this.expose = options.expose ?? options.status < 500;
    this.headers = options.headers ?? {};
  }
}

const invalidRequest = (status: number, code: string, message: string, param: string | null = null) =>
  new GatewayError(message, { status, type: 'invalid_request_error', code, param });

export const invalidJson = (detail: string) =>
  invalidRequest(400, 'invalid_json', `We could not parse the JSON body of your request: ${detail}`);

export const invalidValue = (message: string, param: string | null) =>
  invalidRequest(400, 'invalid_value', message, param);

export const missingRequired = (message: string, param: string | null) =>
  invalidRequest(400, 'missing_required', message, param);

export const invalidApiKey = (
  message = 'Incorrect or missing API key. Send your key in the Authorization header, as a bearer token.',
) => invalidRequest(401, 'invalid_api_key', message);

export const forbidden = (message: string) =>
  new GatewayError(message, { status: 403, type: 'permission_error', code: 'forbidden' });

export const modelNotFound = (model: string) =>
  invalidRequest(
    404,
    'model_not_found',
    `The model '${model}' does not exist or you do not have access to it.`,
    'model',
  );

export const notFound = (message: string, code = 'not_found') => invalidRequest(404, code, message);

export const unknownUrl = (method: string, path: string) =>
  invalidRequest(404, 'unknown_url', `Unknown request URL: ${method} ${path}. Check the path and the /v1 prefix.`);

export const methodNotAllowed = (method: string, path: string, allowed: readonly string[]) =>
  new GatewayError(`Method ${method} is not allowed on ${path}. Allowed: ${allowed.join(', ')}.`, {
    status: 405,
    type: 'invalid_request_error',
    code: 'method_not_allowed',
    headers: { allow: allowed.join(', ') },
  });

export const payloadTooLarge = (limitBytes: number) =>
  invalidRequest(413, 'payload_too_large', `The request body is larger than ${limitBytes} bytes.`);

export const conflict = (message: string) => invalidRequest(409, 'conflict', message);

export const internalError = (cause: unknown) =>
  new GatewayError('The server had an error while processing your request.', {
    status: 500,
    type: 'server_error',
    code: 'internal_error',
    expose: false,
    cause,
  });

export const isGatewayError = (value: unknown): value is GatewayError => value instanceof GatewayError;

/** A thrown value as a log line tells it: name, message and stack for an error. */
export const describeThrown = (value: unknown): string =>
  value instanceof Error ? `${value.name}: ${value.message}\n${value.stack ?? ''}` : String(value);
