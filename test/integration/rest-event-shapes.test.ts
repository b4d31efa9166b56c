import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { FunctionGroup } from '../../functions/shared/routes.js';
import { loadHandler } from '../../infra/local/handlers.js';
import { describeInProcess } from '../support/gateway-target.js';
import { addOfflineDemoChannel } from '../support/offline-demo-channel.js';
import { lambdaContextStub, proxyEvent } from '../support/proxy-event.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * Events as API Gateway and its console hand them to a function, straight into the handlers: members
 * null or absent (a test invocation sends `headers: null`), a base64 body, parameters still
 * percent-encoded. Each is answered as over HTTP, a 4xx at worst.
 */
const run = describeInProcess('the handlers are called in this process');

run('REST proxy events of every shape', () => {
  let gateway: TestGateway;
  let key: string;

  beforeAll(async () => {
    gateway = await startTestGateway();
    await addOfflineDemoChannel(gateway);
    ({ key } = await gateway.createAccountWithKey());
  });

  afterAll(async () => {
    await gateway?.close();
  });

  /** As API Gateway's test console sends it: no headers at all unless given. */
  const event = (fields: Partial<APIGatewayProxyEvent>): APIGatewayProxyEvent =>
    proxyEvent({ headers: null, multiValueHeaders: null, requestContext: {}, ...fields } as never);

  /** The status and body a handler answers, streaming (its prelude and bytes) or buffered. */
  const invoke = async (group: FunctionGroup, request: APIGatewayProxyEvent) => {
    const handler = (await loadHandler(group)) as (...args: unknown[]) => Promise<unknown>;
    const chunks: Buffer[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(Buffer.from(chunk));
        done();
      },
    });
    // As Lambda's runtime writes a streamed response's prelude: its JSON, then eight zero bytes.
    const lambda = (globalThis as unknown as { awslambda: { HttpResponseStream: unknown } }).awslambda;
    const local = lambda.HttpResponseStream;
    lambda.HttpResponseStream = {
      from: (stream: Writable, prelude: unknown) => {
        stream.write(JSON.stringify(prelude));
        stream.write(new Uint8Array(8));
        return stream;
      },
    };
    let result: { statusCode?: number; body?: string } | undefined;
    try {
      result = (await handler(request, sink, lambdaContextStub())) as typeof result;
    } finally {
      lambda.HttpResponseStream = local;
    }
    if (result?.statusCode !== undefined) return { status: result.statusCode, body: String(result.body) };
    const bytes = Buffer.concat(chunks);
    const end = bytes.indexOf(Buffer.alloc(8));
    const prelude = JSON.parse(bytes.subarray(0, end).toString('utf8')) as { statusCode: number };
    return { status: prelude.statusCode, body: bytes.subarray(end + 8).toString('utf8') };
  };

  const chatBody = JSON.stringify({ model: 'demo-1', messages: [{ role: 'user', content: 'hi' }] });

  it('refuses a call without headers as unauthenticated', async () => {
    const answer = await invoke('chat', event({ resource: '/v1/chat/completions', path: '/v1/chat/completions' }));
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).error.code).toBe('invalid_api_key');
  });

  it('reads a body API Gateway sent base64-encoded', async () => {
    const answer = await invoke(
      'chat',
      event({
        resource: '/v1/chat/completions',
        path: '/v1/chat/completions',
        headers: { Authorization: `Bearer ${key}` },
        body: Buffer.from(chatBody).toString('base64'),
        isBase64Encoded: true,
      }),
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).choices[0].message.content).toContain('demo-1');
  });

  it('serves a Gemini call whose model and method are percent-encoded, with its key in the query', async () => {
    const answer = await invoke(
      'chat',
      event({
        resource: '/v1beta/models/{modelAction}',
        path: '/v1beta/models/demo-1%3AgenerateContent',
        queryStringParameters: { key },
        pathParameters: { modelAction: 'demo-1%3AgenerateContent' },
        body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
      }),
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).candidates).toHaveLength(1);
  });

  it('serves a call whose event has no requestContext', async () => {
    const answer = await invoke(
      'chat',
      event({
        resource: '/v1/messages',
        path: '/v1/messages',
        headers: { 'X-Api-Key': key },
        body: JSON.stringify({ model: 'demo-1', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }),
        requestContext: undefined,
      }),
    );
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).type).toBe('message');
  });

  it('answers a route whose parameters are missing, or an event without a path, with a 4xx', async () => {
    const missing = await invoke(
      'admin',
      event({
        httpMethod: 'GET',
        resource: '/admin/v1/accounts/{id}',
        path: '/admin/v1/accounts/x',
        headers: { authorization: `Bearer ${gateway.adminKey}` },
      }),
    );
    expect(missing.status).toBe(400);
    const pathless = await invoke('fallback', event({ httpMethod: 'GET', path: undefined }));
    expect(pathless.status).toBe(404);
  });
});
