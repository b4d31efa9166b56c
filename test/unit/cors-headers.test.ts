import { CORS_ORIGINS_VARIABLE } from '../../functions/shared/http/cors-policy.js';
import { json } from '../../functions/shared/http/response.js';
import { gatewayHandler } from '../../functions/shared/middleware/gateway-handler.js';
import { lambdaContextStub, proxyEvent } from '../support/proxy-event.js';

type Result = { statusCode: number; headers: Record<string, string>; body: string };

/** A function built while GATEWAY_CORS_ORIGINS is `origins` (it is read once, when the function starts). */
const functionWith = (origins: string | undefined) => {
  const saved = process.env[CORS_ORIGINS_VARIABLE];
  if (origins === undefined) delete process.env[CORS_ORIGINS_VARIABLE];
  else process.env[CORS_ORIGINS_VARIABLE] = origins;
  try {
    return gatewayHandler({ auth: false }, async () => json(200, { ok: true }));
  } finally {
    if (saved === undefined) delete process.env[CORS_ORIGINS_VARIABLE];
    else process.env[CORS_ORIGINS_VARIABLE] = saved;
  }
};

const invoke = async (handler: unknown, origin: string): Promise<Result> =>
  (await (handler as (event: unknown, context: unknown) => Promise<Result>)(
    proxyEvent({ headers: { Origin: origin } }),
    lambdaContextStub(),
  )) as Result;

describe('CORS headers', () => {
  it('are off by default, whatever the origin', async () => {
    const response = await invoke(functionWith(undefined), 'https://app.example');

    expect(response.statusCode).toBe(200);
    expect(Object.keys(response.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('allow any origin with *, without varying on it', async () => {
    const response = await invoke(functionWith('*'), 'https://anywhere.example');

    expect(response.headers['access-control-allow-origin']).toBe('*');
    expect(response.headers.vary).toBeUndefined();
  });

  it('name the origin when it is listed (a trailing slash in the list does not matter)', async () => {
    const response = await invoke(functionWith('https://a.example/, https://app.example'), 'https://app.example');

    expect(response.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(response.headers.vary).toBe('origin');
  });
});
