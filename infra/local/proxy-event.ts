import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { nullPrototypeRecord } from '../../functions/shared/http/null-prototype.js';
import type { RequestTarget } from './request-target.js';

export interface ProxyEventInput {
  readonly request: IncomingMessage;
  readonly target: RequestTarget;
  readonly body: Buffer;
  /** The matched resource (`/admin/v1/keys/{id}`), or the proxy resource for unmatched paths. */
  readonly resource: string;
  readonly pathParameters: Record<string, string> | null;
  /** The id API Gateway would give the request (`requestContext.requestId`). */
  readonly requestId: string;
}

const TEXT_TYPES = /^(application\/(json|x-www-form-urlencoded|.*\+json)|text\/)/i;

/** Each header's values, in the order they came, under the name as the client sent it. */
const multiValued = (rawHeaders: readonly string[]): Record<string, string[]> => {
  const values = nullPrototypeRecord<string[]>();
  for (let index = 0; index < rawHeaders.length; index += 2)
    (values[rawHeaders[index]!] ??= []).push(rawHeaders[index + 1]!);
  return values;
};

/** The API Gateway REST proxy event (payload 1.0) that API Gateway would send for this request. */
export const buildProxyEvent = ({
  request,
  target,
  body,
  resource,
  pathParameters,
  requestId,
}: ProxyEventInput): APIGatewayProxyEvent => {
  // Names come from the client: `__proto__` or `constructor` must be plain entries.
  const { rawHeaders } = request;
  const headers = nullPrototypeRecord<string>();
  for (let index = 0; index < rawHeaders.length; index += 2) headers[rawHeaders[index]!] = rawHeaders[index + 1]!;
  let query: Record<string, string> | null = null;
  let multiValueQuery: Record<string, string[]> | null = null;
  for (const [name, value] of target.query ?? []) {
    (query ??= nullPrototypeRecord())[name] = value;
    ((multiValueQuery ??= nullPrototypeRecord())[name] ??= []).push(value);
  }
  const contentType = request.headers['content-type'] ?? 'application/json';
  const isText = body.length === 0 || TEXT_TYPES.test(contentType);
  // Percent-encoded, as a REST API passes the path (and path parameters) on: the handlers decode them.
  const path = target.path;
  return {
    resource,
    path,
    httpMethod: request.method ?? 'GET',
    headers,
    // Built with the event, as API Gateway sends it. A getter made here, reading the request's raw
    // headers when first called, cost more than the arrays it saved: an object literal whose getter is
    // a new closure gets a hidden class of its own, which V8 keeps in the old generation with all the
    // getter reaches until a full collection, so every event outlived young collections.
    multiValueHeaders: multiValued(rawHeaders),
    queryStringParameters: query,
    multiValueQueryStringParameters: multiValueQuery,
    pathParameters,
    stageVariables: null,
    body: body.length === 0 ? null : isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !isText,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      authorizer: null,
      protocol: `HTTP/${request.httpVersion}`,
      httpMethod: request.method ?? 'GET',
      identity: {
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: request.headers['user-agent'] ?? null,
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        user: null,
        userArn: null,
      },
      path,
      stage: 'local',
      requestId,
      requestTimeEpoch: Date.now(),
      resourceId: 'local',
      resourcePath: resource,
    },
  };
};
