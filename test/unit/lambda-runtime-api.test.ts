import http from 'node:http';
import { RuntimeReportedError, startRuntimeApi, type RuntimeApi } from '../../infra/build/lambda-runtime-api.js';

/**
 * The local Runtime API that bundles are run against under AWS's runtime interface client, driven
 * here the way a runtime drives Lambda's: poll for an event, answer it buffered or streamed, or
 * report an error.
 */

interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

const call = (
  api: RuntimeApi,
  method: string,
  path: string,
  options: { headers?: http.OutgoingHttpHeaders; body?: (request: http.ClientRequest) => void } = {},
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const [hostname, port] = api.address.split(':');
    const request = http.request({ hostname, port, method, path, headers: options.headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
    });
    request.on('error', reject);
    if (options.body) options.body(request);
    else request.end();
  });

const API = '/2018-06-01/runtime';

let api: RuntimeApi;
beforeEach(async () => {
  api = await startRuntimeApi('runtime-api-test');
});
afterEach(async () => {
  await api.close();
});

/** A promise's failure, heard at once: an invocation fails before the test looks at it. */
const failureOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

/** The next invocation, as the runtime receives it: its id and event. */
const next = async () => {
  const answer = await call(api, 'GET', `${API}/invocation/next`);
  return { id: String(answer.headers['lambda-runtime-aws-request-id']), answer };
};

describe('the local Lambda Runtime API', () => {
  it('hands the runtime its event with the invocation headers, and resolves with a buffered answer', async () => {
    const answered = api.invoke({ path: '/v1/models' });
    const { id, answer } = await next();

    expect(JSON.parse(answer.body)).toEqual({ path: '/v1/models' });
    expect(Number(answer.headers['lambda-runtime-deadline-ms'])).toBeGreaterThan(Date.now());
    expect(answer.headers['lambda-runtime-invoked-function-arn']).toMatch(/:function:runtime-api-test$/);
    await call(api, 'POST', `${API}/invocation/${id}/response`, {
      body: (request) =>
        request.end(
          JSON.stringify({
            statusCode: 201,
            headers: { a: 'b' },
            body: Buffer.from('hi').toString('base64'),
            isBase64Encoded: true,
          }),
        ),
    });

    await expect(answered).resolves.toEqual({ statusCode: 201, headers: { a: 'b' }, body: 'hi' });
  });

  it('records when the runtime first polled: the end of its init', async () => {
    const before = performance.now();
    void api.invoke({});
    await next();
    const initDone = await api.initDone;
    expect(initDone).toBeGreaterThanOrEqual(before);
  });

  it('reads a streamed answer: the prelude, eight NUL bytes, then the body as written', async () => {
    const answered = api.invoke({});
    const { id } = await next();
    await call(api, 'POST', `${API}/invocation/${id}/response`, {
      headers: {
        'lambda-runtime-function-response-mode': 'streaming',
        'content-type': 'application/vnd.awslambda.http-integration-response',
        'transfer-encoding': 'chunked',
      },
      body: (request) => {
        request.write(JSON.stringify({ statusCode: 200, headers: { 'content-type': 'text/event-stream' } }));
        request.write(Buffer.alloc(8));
        request.write('data: one\n\n');
        request.end('data: [DONE]\n\n');
      },
    });

    await expect(answered).resolves.toEqual({
      statusCode: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: 'data: one\n\ndata: [DONE]\n\n',
    });
  });

  it('fails an invocation the runtime reported as an error, or whose stream ended with error trailers', async () => {
    const reported = failureOf(api.invoke({}));
    const first = await next();
    await call(api, 'POST', `${API}/invocation/${first.id}/error`, {
      headers: { 'lambda-runtime-function-error-type': 'Runtime.HandlerError' },
      body: (request) => request.end('{"errorMessage":"boom"}'),
    });
    expect(await reported).toEqual(new RuntimeReportedError('Runtime.HandlerError', '{"errorMessage":"boom"}'));

    const broken = failureOf(api.invoke({}));
    const second = await next();
    await call(api, 'POST', `${API}/invocation/${second.id}/response`, {
      headers: { 'lambda-runtime-function-response-mode': 'streaming', trailer: 'Lambda-Runtime-Function-Error-Type' },
      body: (request) => {
        request.write('partial');
        request.addTrailers({
          'Lambda-Runtime-Function-Error-Type': 'Error',
          'Lambda-Runtime-Function-Error-Body': Buffer.from('{"errorMessage":"mid-stream"}').toString('base64'),
        });
        request.end();
      },
    });
    expect(await broken).toMatchObject({ errorType: 'Error', report: '{"errorMessage":"mid-stream"}' });
  });

  it('fails init, and every queued invocation, when the runtime reports an init error', async () => {
    const queued = failureOf(api.invoke({}));
    await call(api, 'POST', `${API}/init/error`, {
      headers: { 'lambda-runtime-function-error-type': 'Runtime.ImportModuleError' },
      body: (request) => request.end('{"errorMessage":"Cannot find module"}'),
    });

    await expect(api.initDone).rejects.toMatchObject({ errorType: 'Runtime.ImportModuleError' });
    expect(await queued).toMatchObject({ errorType: 'Runtime.ImportModuleError' });
  });
});
