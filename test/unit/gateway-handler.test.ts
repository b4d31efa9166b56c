import { jest } from '@jest/globals';
import * as z from '../../functions/shared/schemas/zod.js';
import { json } from '../../functions/shared/http/response.js';
import { gatewayHandler } from '../../functions/shared/middleware/gateway-handler.js';
import { lazySchema } from '../../functions/shared/schemas/lazy-schema.js';
import { captureLogLines } from '../support/captured-log-lines.js';
import { lambdaContextStub, proxyEvent } from '../support/proxy-event.js';

type Result = { statusCode: number; headers: Record<string, string>; body: string };

const invoke = async (handler: unknown, event = proxyEvent()): Promise<Result> =>
  (await (handler as (event: unknown, context: unknown) => Promise<Result>)(event, lambdaContextStub())) as Result;

const echoSchema = lazySchema(() =>
  z.strictObject({
    name: z.string(),
    count: z._default(z.number().check(z.int(), z.gte(1), z.lte(5)), 1),
    items: z.optional(z.array(z.strictObject({ role: z.enum(['user', 'assistant']) }))),
  }),
);

const echo = gatewayHandler({ auth: false, body: echoSchema }, async ({ body, requestId }) =>
  json(200, { body, requestId }),
);

describe('gatewayHandler', () => {
  it('decodes the path parameters a REST API passes on percent-encoded, and refuses malformed ones', async () => {
    const handler = gatewayHandler({ auth: false }, async ({ pathParameters }) => json(200, { pathParameters }));
    // As a live REST API event holds them: `path` and `pathParameters` as the client encoded them.
    const event = (model: string) =>
      proxyEvent({
        httpMethod: 'GET',
        resource: '/admin/v1/models/{model}',
        path: `/admin/v1/models/${model}`,
        pathParameters: { model },
      });
    for (const [encoded, decoded] of [
      ['org%2Fmodel-1', 'org/model-1'],
      ['gemini-2.5-pro%3AgenerateContent', 'gemini-2.5-pro:generateContent'],
      ['100%25', '100%'],
      ['plain', 'plain'],
    ]) {
      const result = await invoke(handler, event(encoded!));
      expect(result.statusCode).toBe(200);
      expect(JSON.parse(result.body).pathParameters).toEqual({ model: decoded });
    }
    const malformed = await invoke(handler, event('bad%zz'));
    expect(malformed.statusCode).toBe(400);
    expect(JSON.parse(malformed.body).error.code).toBe('invalid_value');
  });

  it("answers an encoded Gemini path in Google's envelope", async () => {
    const handler = gatewayHandler({ auth: false }, async () => {
      throw new Error('never reached');
    });
    const result = await invoke(
      handler,
      proxyEvent({ path: '/v1/models/gemini-2.5-pro%3AgenerateContent', pathParameters: { modelAction: 'x' } }),
    );
    expect(result.statusCode).toBe(500);
    expect(JSON.parse(result.body).error.status).toBe('INTERNAL');
  });

  it('logs deferred work that fails, and starts deferred functions only once the response is made', async () => {
    const log = captureLogLines();
    const order: string[] = [];
    try {
      const handler = gatewayHandler({ auth: false }, async ({ defer }) => {
        defer(Promise.reject(new Error('early failure')));
        defer(async () => {
          order.push('deferred function ran');
          throw new Error('late failure');
        });
        // A macrotask passes between the first failure and the end of the function.
        await new Promise((resolve) => setImmediate(resolve));
        order.push('handler returned');
        return json(200, {});
      });
      expect((await invoke(handler)).statusCode).toBe(200);
      expect(order).toEqual(['handler returned', 'deferred function ran']);
      const failures = log.lines.filter((line) => line.message === 'deferred work failed');
      expect(failures.map((line) => line.error)).toEqual(['Error: early failure', 'Error: late failure']);
    } finally {
      log.restore();
    }
  });

  it('logs deferred work that throws before it returns a promise, and still ends the invocation', async () => {
    const log = captureLogLines();
    try {
      const handler = gatewayHandler({ auth: false }, async ({ defer }) => {
        defer((() => {
          throw new Error('thrown at start');
        }) as () => Promise<unknown>);
        return json(200, {});
      });
      expect((await invoke(handler)).statusCode).toBe(200);
      const failures = log.lines.filter((line) => line.message === 'deferred work failed');
      expect(failures.map((line) => line.error)).toEqual(['Error: thrown at start']);
      // The request's line comes after its deferred work, failed or not.
      expect(log.lines.some((line) => line.message === 'request')).toBe(true);
    } finally {
      log.restore();
    }
  });

  it('builds the body schema on the first request that needs it, once, not when the endpoint is defined', async () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds += 1;
      return z.strictObject({ name: z.string() });
    });
    const first = gatewayHandler({ auth: false, body: schema }, async () => json(200, {}));
    const second = gatewayHandler({ auth: false, body: schema }, async () => json(200, {}));
    expect(builds).toBe(0);

    const refused = await invoke(first, proxyEvent({ body: '{"name":1}' }));
    await invoke(first, proxyEvent({ body: '{"name":"a"}' }));
    const accepted = await invoke(second, proxyEvent({ body: '{"name":"b"}' }));

    expect([refused.statusCode, accepted.statusCode, builds]).toEqual([400, 200, 1]);
  });

  it('hands the handler the validated body with defaults applied, and tags the response with the request id', async () => {
    const response = await invoke(echo, proxyEvent({ body: '{"name":"a"}' }));

    expect(response.statusCode).toBe(200);
    expect(response.headers['x-request-id']).toBe('req-test-1');
    expect(JSON.parse(response.body)).toEqual({ body: { name: 'a', count: 1 }, requestId: 'req-test-1' });
  });

  it('answers 400 invalid_json for a body that is not JSON', async () => {
    const response = await invoke(echo, proxyEvent({ body: '{"name":' }));

    expect(response.statusCode).toBe(400);
    expect(response.headers['x-request-id']).toBe('req-test-1');
    expect(JSON.parse(response.body).error.code).toBe('invalid_json');
  });

  it('answers 400 invalid_json for JSON that is not an object', async () => {
    const response = await invoke(echo, proxyEvent({ body: '[1,2]' }));

    expect(JSON.parse(response.body).error.code).toBe('invalid_json');
  });

  it('names the failing field path in param', async () => {
    const response = await invoke(
      echo,
      proxyEvent({ body: '{"name":"a","items":[{"role":"user"},{"role":"robot"}]}' }),
    );

    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).error).toMatchObject({
      code: 'invalid_value',
      param: 'items[1].role',
      type: 'invalid_request_error',
    });
  });

  it('says missing_required for an absent required field', async () => {
    const response = await invoke(echo, proxyEvent({ body: '{"count":2}' }));

    expect(JSON.parse(response.body).error).toMatchObject({ code: 'missing_required', param: 'name' });
  });

  it('refuses a field out of bounds', async () => {
    const response = await invoke(echo, proxyEvent({ body: '{"name":"a","count":9}' }));

    expect(JSON.parse(response.body).error).toMatchObject({ code: 'invalid_value', param: 'count' });
  });

  it('turns an unexpected throw into a generic 500 envelope that keeps the request id', async () => {
    const failing = gatewayHandler({ auth: false }, async () => {
      throw new Error('secret detail');
    });
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);

    const response = await invoke(failing);
    stderr.mockRestore();

    expect(response.statusCode).toBe(500);
    expect(response.body).not.toContain('secret detail');
    expect(response.headers['x-request-id']).toBe('req-test-1');
  });

  it('reads a base64-encoded body', async () => {
    const response = await invoke(
      echo,
      proxyEvent({ body: Buffer.from('{"name":"b"}').toString('base64'), isBase64Encoded: true }),
    );

    expect(JSON.parse(response.body).body.name).toBe('b');
  });

  it('answers 401 before reading the body when authentication is required and no key is sent', async () => {
    const guarded = gatewayHandler({ auth: 'user', body: echoSchema }, async () => json(200, {}));

    const response = await invoke(guarded, proxyEvent({ body: 'not json' }));

    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body).error.code).toBe('invalid_api_key');
  });

  it('answers 401 for a malformed key without consulting the store', async () => {
    const guarded = gatewayHandler({ auth: 'user' }, async () => json(200, {}));

    const response = await invoke(guarded, proxyEvent({ headers: { Authorization: 'Bearer not-a-key' } }));

    expect(response.statusCode).toBe(401);
  });
});
