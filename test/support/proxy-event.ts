import type { APIGatewayProxyEvent, Context } from 'aws-lambda';

/** A minimal API Gateway REST proxy event for calling a handler directly. */
export const proxyEvent = (overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent =>
  ({
    resource: '/v1/test',
    path: '/v1/test',
    httpMethod: 'POST',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: { requestId: 'req-test-1' },
    ...overrides,
  }) as APIGatewayProxyEvent;

export const lambdaContextStub = (): Context =>
  ({ awsRequestId: 'aws-req', functionName: 'test', getRemainingTimeInMillis: () => 10_000 }) as unknown as Context;
