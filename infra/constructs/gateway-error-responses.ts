import * as apigateway from 'aws-cdk-lib/aws-apigateway';

/**
 * API Gateway answers some requests itself, before any function runs: a body over 10 MB, a
 * throttled burst, a path with no resource, a timed-out integration. These responses give those
 * answers the functions' error envelope (DESIGN §3.4) and the request id.
 *
 * The functions pick the envelope by path (Anthropic's on `/v1/messages*`, Google's on Gemini-style
 * paths); a gateway response cannot: its template is not run through VTL (no `#if` on
 * `$context.resourcePath`), only `$context` variables are substituted, and it is set once per API.
 * So one body carries what each family's clients read: OpenAI's `{error:{message, type, param, code}}`,
 * with Anthropic's top-level `type: "error"` and Google's `error.status` beside it. Only Google's
 * numeric `error.code` cannot be had, since OpenAI's `code` is a string.
 */
interface GatewayErrorResponse {
  readonly type: apigateway.ResponseType;
  /** Omitted: keep the status API Gateway chose (the DEFAULT_* families span several). */
  readonly status?: number;
  readonly errorType: string;
  readonly code: string | null;
  /** A fixed text, or `undefined` to pass API Gateway's own message through. */
  readonly message?: string;
  /** Google's canonical status name for this answer (`error.status` in Gemini's envelope). */
  readonly googleStatus: string;
  readonly headers?: Readonly<Record<string, string>>;
}

/** API Gateway's request body limit, which the local runtime applies too (DESIGN §3.4). */
const requestBodyLimitBytes = 10 * 1024 * 1024;

const genericServerMessage = 'The server had an error while processing your request.';

const errorResponses: readonly GatewayErrorResponse[] = [
  {
    type: apigateway.ResponseType.DEFAULT_4XX,
    errorType: 'invalid_request_error',
    code: null,
    googleStatus: 'INVALID_ARGUMENT',
  },
  {
    type: apigateway.ResponseType.DEFAULT_5XX,
    errorType: 'server_error',
    code: 'internal_error',
    message: genericServerMessage,
    googleStatus: 'INTERNAL',
  },
  {
    type: apigateway.ResponseType.REQUEST_TOO_LARGE,
    status: 413,
    errorType: 'invalid_request_error',
    code: 'payload_too_large',
    message: `The request body is larger than ${requestBodyLimitBytes} bytes.`,
    googleStatus: 'INVALID_ARGUMENT',
  },
  // No usage plans are attached, so these come from the stage's or the account's throttle.
  ...[apigateway.ResponseType.THROTTLED, apigateway.ResponseType.QUOTA_EXCEEDED].map((type) => ({
    type,
    status: 429,
    errorType: 'requests',
    code: 'rate_limit_exceeded',
    message: 'Too many requests reached the gateway at once. Retry after a short wait.',
    googleStatus: 'RESOURCE_EXHAUSTED',
    headers: { 'retry-after': '1' },
  })),
  // API Gateway's "Missing Authentication Token" really means "no such resource or method".
  ...[apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN, apigateway.ResponseType.RESOURCE_NOT_FOUND].map((type) => ({
    type,
    status: 404,
    errorType: 'invalid_request_error',
    code: 'unknown_url',
    message: 'Unknown request URL. Check the path and the /v1 prefix.',
    googleStatus: 'NOT_FOUND',
  })),
  // Only reachable if an operator adds a resource policy or a WAF web ACL (DESIGN: an IP not allowed).
  ...[apigateway.ResponseType.ACCESS_DENIED, apigateway.ResponseType.WAF_FILTERED].map((type) => ({
    type,
    status: 403,
    errorType: 'permission_error',
    code: 'forbidden',
    googleStatus: 'PERMISSION_DENIED',
  })),
  {
    type: apigateway.ResponseType.INTEGRATION_TIMEOUT,
    status: 504,
    errorType: 'upstream_error',
    code: 'upstream_timeout',
    message: 'The request timed out before the gateway could answer.',
    googleStatus: 'DEADLINE_EXCEEDED',
  },
];

/**
 * The envelope as a gateway response template. Templates are not run through VTL, but `$context`
 * variables are substituted; `$context.error.messageString` arrives already quoted as a JSON string.
 */
const envelopeTemplate = (response: GatewayErrorResponse): string => {
  const message = response.message === undefined ? '$context.error.messageString' : JSON.stringify(response.message);
  const code = response.code === null ? 'null' : JSON.stringify(response.code);
  const type = JSON.stringify(response.errorType);
  const status = JSON.stringify(response.googleStatus);
  return `{"type":"error","error":{"message":${message},"type":${type},"param":null,"code":${code},"status":${status}}}`;
};

/** Header values in gateway responses are literals, so they go in single quotes. */
const literalHeaders = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, `'${value}'`]));

/** API Gateway's own request id (a context variable, so unquoted), as the functions send it. */
const requestIdHeader = { 'x-request-id': 'context.requestId' };

/** Adds the enveloped responses to a REST API. */
export const addGatewayErrorResponses = (api: apigateway.RestApi): void => {
  for (const response of errorResponses) {
    api.addGatewayResponse(`${response.type.responseType}Response`, {
      type: response.type,
      statusCode: response.status === undefined ? undefined : String(response.status),
      responseHeaders: {
        ...literalHeaders({ 'content-type': 'application/json', ...response.headers }),
        ...requestIdHeader,
      },
      templates: { 'application/json': envelopeTemplate(response) },
    });
  }
};
