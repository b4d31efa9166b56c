import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { onFirstRequest } from '../../functions/shared/middleware/on-first-request.js';
import { routeStreamingByResource } from '../../functions/shared/middleware/route-by-resource.js';
import { installLambdaStreamingGlobals } from '../../infra/local/lambda-streaming.js';

/** Which route answered, and which deferred route modules were loaded, in order. */
const harness = () => {
  const answered: string[] = [];
  const loaded: string[] = [];
  const route = (name: string) => async () => {
    answered.push(name);
  };
  const deferred = (name: string, failures = 0) => {
    let left = failures;
    return onFirstRequest(async () => {
      loaded.push(name);
      // A real import resolves on a later turn: concurrent first requests see it pending.
      await new Promise((resolve) => setImmediate(resolve));
      if (left-- > 0) throw new Error(`${name} failed to load`);
      return route(name);
    });
  };
  return { answered, loaded, route, deferred };
};

const call = (handler: unknown, resource: string) =>
  (handler as (event: APIGatewayProxyEvent, stream: Writable, context: Context) => Promise<unknown>)(
    { resource } as APIGatewayProxyEvent,
    new Writable({ write: (_chunk, _encoding, callback) => callback() }),
    {} as Context,
  );

beforeAll(() => installLambdaStreamingGlobals());

describe('routing a streaming group by resource', () => {
  it('loads a deferred route on its first request only, once for concurrent first requests', async () => {
    const { answered, loaded, route, deferred } = harness();
    const handler = routeStreamingByResource(
      { '/v1/chat/completions': route('chat'), '/v1/messages': deferred('messages') },
      '/v1/chat/completions',
    );

    await call(handler, '/v1/chat/completions');
    expect(loaded).toEqual([]);

    await Promise.all([call(handler, '/v1/messages'), call(handler, '/v1/messages'), call(handler, '/v1/messages')]);
    await call(handler, '/v1/messages');

    expect(loaded).toEqual(['messages']);
    expect(answered).toEqual(['chat', 'messages', 'messages', 'messages', 'messages']);
  });

  it('answers an unknown resource with the fallback route', async () => {
    const { answered, route, deferred } = harness();
    const handler = routeStreamingByResource(
      { '/v1/chat/completions': route('chat'), '/v1/responses': deferred('responses') },
      '/v1/chat/completions',
    );

    // Names an object answers to are resources like any other: unknown here.
    for (const resource of ['/v1/unknown', 'constructor', '__proto__', 'toString']) await call(handler, resource);

    expect(answered).toEqual(['chat', 'chat', 'chat', 'chat']);
  });

  it('tries a route whose module failed to load again on the next request', async () => {
    const { answered, loaded, route, deferred } = harness();
    const handler = routeStreamingByResource(
      { '/v1/chat/completions': route('chat'), '/v1/responses': deferred('responses', 1) },
      '/v1/chat/completions',
    );

    await expect(call(handler, '/v1/responses')).rejects.toThrow('responses failed to load');
    await call(handler, '/v1/responses');

    expect(loaded).toEqual(['responses', 'responses']);
    expect(answered).toEqual(['responses']);
  });
});
