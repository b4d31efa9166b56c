import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { functionGroups, routes } from '../../functions/shared/routes.js';
import { functionEntry } from '../../infra/build/esbuild-options.js';
import type { ModelGatewayStack } from '../../infra/gateway-stack.js';
import { synthesizeGatewayStack } from './synthesize.js';

interface Resource {
  readonly Type: string;
  readonly Properties: Record<string, any>;
}

interface DeployedMethod {
  readonly path: string;
  readonly httpMethod: string;
  readonly properties: Record<string, any>;
}

/** Every method of the REST API with its full resource path, read back from the template. */
const methodsOf = (resources: Record<string, Resource>): DeployedMethod[] => {
  const pathOf = (resourceId: unknown): string => {
    const reference = resourceId as { Ref?: string };
    if (!reference.Ref) return '/'; // Fn::GetAtt RootResourceId
    const resource = resources[reference.Ref]!;
    const parent = pathOf(resource.Properties.ParentId);
    return `${parent === '/' ? '' : parent}/${resource.Properties.PathPart}`;
  };
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::ApiGateway::Method')
    .map((method) => ({
      path: pathOf(method.Properties.ResourceId),
      httpMethod: method.Properties.HttpMethod as string,
      properties: method.Properties,
    }));
};

const functionArnOf = (stack: ModelGatewayStack, group: string) => ({
  'Fn::GetAtt': [stack.getLogicalId(stack.functions.functionFor(group).node.defaultChild as CfnElement), 'Arn'],
});

/** Whether a method's Lambda proxy integration invokes the given group's function. */
const invokes = (stack: ModelGatewayStack, method: DeployedMethod, group: string) =>
  JSON.stringify(method.properties.Integration.Uri).includes(JSON.stringify(functionArnOf(stack, group)));

let stack: ModelGatewayStack;
let template: Template;
let resources: Record<string, Resource>;
let methods: DeployedMethod[];

const find = (path: string, httpMethod: string) =>
  methods.find((method) => method.path === path && method.httpMethod === httpMethod);

const gatewayResponse = (type: string) =>
  Object.values(resources).find(
    (resource) => resource.Type === 'AWS::ApiGateway::GatewayResponse' && resource.Properties.ResponseType === type,
  )!.Properties;

/** The response body with API Gateway's message substituted, parsed as the client would. */
const envelopeOf = (type: string) =>
  JSON.parse(
    (gatewayResponse(type).ResponseTemplates['application/json'] as string).replace(
      '$context.error.messageString',
      '"a message from API Gateway"',
    ),
  );

beforeAll(() => {
  stack = synthesizeGatewayStack();
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources;
  methods = methodsOf(resources);
});

describe('gateway REST API', () => {
  it('is a single regional REST API', () => {
    template.resourceCountIs('AWS::ApiGateway::RestApi', 1);
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { EndpointConfiguration: { Types: ['REGIONAL'] } });
  });

  it.each(routes.map((route) => [route.method, route.path, route.group]))(
    'serves %s %s with the %s function',
    (httpMethod, path, group) => {
      const method = find(path, httpMethod);
      expect(method).toBeDefined();
      expect(method!.properties.Integration.Type).toBe('AWS_PROXY');
      expect(invokes(stack, method!, group)).toBe(true);
    },
  );

  it('has no method that the route table does not name, besides the fallback ANY methods', () => {
    const routed = methods.filter((method) => method.httpMethod !== 'ANY');
    expect(routed).toHaveLength(routes.length);
  });

  it('sends every other method on every resource to the fallback function', () => {
    const paths = new Set(methods.map((method) => method.path));
    for (const path of paths) {
      const fallback = find(path, 'ANY');
      expect(fallback).toBeDefined();
      expect(invokes(stack, fallback!, 'fallback')).toBe(true);
    }
  });

  it('sends the root and every unknown path to the fallback function', () => {
    for (const path of ['/', '/{proxy+}']) expect(invokes(stack, find(path, 'ANY')!, 'fallback')).toBe(true);
  });

  it('leaves authentication to the functions', () => {
    for (const method of methods) expect(method.properties.AuthorizationType).toBe('NONE');
  });

  it('streams the chat completions response with a 15 minute integration timeout', () => {
    const integration = find('/v1/chat/completions', 'POST')!.properties.Integration;
    expect(integration.ResponseTransferMode).toBe('STREAM');
    expect(integration.TimeoutInMillis).toBe(15 * 60 * 1000);
    expect(JSON.stringify(integration.Uri)).toContain('/response-streaming-invocations');
  });

  it('streams every route of a group marked streaming', () => {
    const streamed = routes.filter((route) => functionGroups[route.group].streaming);
    for (const route of streamed) {
      expect(find(route.path, route.method)!.properties.Integration).toMatchObject({
        ResponseTransferMode: 'STREAM',
        TimeoutInMillis: 900_000,
      });
    }
  });

  it('buffers the responses of groups that do not stream, within the 29 s limit', () => {
    const buffered = methods.filter((method) => {
      const route = routes.find(
        (candidate) => candidate.path === method.path && candidate.method === method.httpMethod,
      );
      return !route || !functionGroups[route.group].streaming;
    });
    for (const method of buffered) {
      expect(method.properties.Integration.ResponseTransferMode ?? 'BUFFERED').toBe('BUFFERED');
      expect(method.properties.Integration.TimeoutInMillis ?? 29_000).toBeLessThanOrEqual(29_000);
    }
  });

  it('grants each function one invoke permission for the whole API', () => {
    const permissions = template.findResources('AWS::Lambda::Permission', {
      Properties: { Principal: 'apigateway.amazonaws.com' },
    });
    expect(Object.keys(permissions)).toHaveLength(Object.keys(functionGroups).length);
  });

  it('logs every request to an access log group kept for a month', () => {
    const stage = Object.values(resources).find((resource) => resource.Type === 'AWS::ApiGateway::Stage')!;
    expect(stage.Properties.StageName).toBe('prod');
    const logGroupId = stage.Properties.AccessLogSetting.DestinationArn['Fn::GetAtt'][0] as string;
    expect(resources[logGroupId]).toMatchObject({ Properties: { RetentionInDays: 30 } });
    expect(stage.Properties.AccessLogSetting.Format).not.toContain('querystring');
  });

  it('answers a body over 10 MB with 413 payload_too_large in the error envelope', () => {
    expect(gatewayResponse('REQUEST_TOO_LARGE').StatusCode).toBe('413');
    expect(envelopeOf('REQUEST_TOO_LARGE')).toEqual({
      type: 'error',
      error: {
        message: 'The request body is larger than 10485760 bytes.',
        type: 'invalid_request_error',
        param: null,
        code: 'payload_too_large',
        status: 'INVALID_ARGUMENT',
      },
    });
  });

  it.each(['THROTTLED', 'QUOTA_EXCEEDED'])('answers %s with 429 rate_limit_exceeded and Retry-After', (type) => {
    const response = gatewayResponse(type);
    expect(response.StatusCode).toBe('429');
    expect(response.ResponseParameters['gatewayresponse.header.retry-after']).toBe("'1'");
    expect(envelopeOf(type).error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded', param: null });
  });

  it('answers a path without a resource with 404 unknown_url', () => {
    expect(gatewayResponse('MISSING_AUTHENTICATION_TOKEN').StatusCode).toBe('404');
    expect(envelopeOf('MISSING_AUTHENTICATION_TOKEN').error.code).toBe('unknown_url');
  });

  const ownResponses = [
    'DEFAULT_4XX',
    'DEFAULT_5XX',
    'REQUEST_TOO_LARGE',
    'THROTTLED',
    'INTEGRATION_TIMEOUT',
    'MISSING_AUTHENTICATION_TOKEN',
  ];

  it.each(ownResponses)('gives the %s response the JSON error envelope of OpenAI-style clients', (type) => {
    expect(gatewayResponse(type).ResponseParameters['gatewayresponse.header.content-type']).toBe("'application/json'");
    expect(envelopeOf(type).error).toEqual({
      message: expect.any(String),
      type: expect.any(String),
      param: null,
      code: type === 'DEFAULT_4XX' ? null : expect.any(String),
      status: expect.any(String),
    });
  });

  // Gateway response templates are not run through VTL, so no template can branch on the path: the
  // one body must also be what the Anthropic and Google SDKs read on their paths.
  it.each(ownResponses)('gives the %s response the fields Anthropic-style clients read', (type) => {
    const envelope = envelopeOf(type);
    expect(envelope.type).toBe('error');
    expect(envelope.error).toMatchObject({ type: expect.any(String), message: expect.any(String) });
  });

  it.each(ownResponses)("gives the %s response Google's canonical status", (type) => {
    expect(envelopeOf(type).error.status).toMatch(
      /^(INVALID_ARGUMENT|INTERNAL|RESOURCE_EXHAUSTED|NOT_FOUND|DEADLINE_EXCEEDED)$/,
    );
  });

  it.each(ownResponses)("carries API Gateway's request id in x-request-id on the %s response", (type) => {
    expect(gatewayResponse(type).ResponseParameters['gatewayresponse.header.x-request-id']).toBe('context.requestId');
  });

  it('keeps the status of the default families and hides server error details', () => {
    expect(gatewayResponse('DEFAULT_4XX').StatusCode).toBeUndefined();
    expect(gatewayResponse('DEFAULT_5XX').StatusCode).toBeUndefined();
    expect(envelopeOf('DEFAULT_5XX').error).toMatchObject({ type: 'server_error', code: 'internal_error' });
  });

  it('outputs the stage URL as ApiUrl, without a trailing slash', () => {
    const output = template.findOutputs('ApiUrl').ApiUrl;
    expect(output).toBeDefined();
    const parts = output!.Value['Fn::Join'][1] as unknown[];
    expect(parts[0]).toBe('https://');
    expect(parts.at(-1)).toBe('/prod');
  });
});

describe('gateway REST API built from a test route table', () => {
  it('streams the routes of any group marked streaming', () => {
    const testStack = synthesizeGatewayStack({
      functionGroups: { ...functionGroups, streamer: { streaming: true, memorySize: 256, timeoutSeconds: 300 } },
      routes: [...routes, { method: 'POST', path: '/v1/test/stream', group: 'streamer' }],
      entryFor: (group) => functionEntry(group === 'streamer' ? 'fallback' : group),
    });
    const testMethods = methodsOf(Template.fromStack(testStack).toJSON().Resources);
    const method = testMethods.find(
      (candidate) => candidate.path === '/v1/test/stream' && candidate.httpMethod === 'POST',
    )!;
    expect(method.properties.Integration).toMatchObject({ ResponseTransferMode: 'STREAM', TimeoutInMillis: 900_000 });
    expect(invokes(testStack, method, 'streamer')).toBe(true);
  });

  it('refuses a route whose group has no function', () => {
    expect(() =>
      synthesizeGatewayStack({ routes: [{ method: 'GET', path: '/v1/nowhere', group: 'nowhere' }] }),
    ).toThrow(/nowhere/);
  });
});
