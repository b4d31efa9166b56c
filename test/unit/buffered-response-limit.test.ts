import { BUFFERED_RESPONSE_LIMIT_BYTES } from '../../functions/shared/http/buffered-response-limit.js';
import { json } from '../../functions/shared/http/response.js';
import { gatewayHandler } from '../../functions/shared/middleware/gateway-handler.js';
import { overPayloadLimit } from '../../infra/local/lambda-payload-limit.js';
import { lambdaContextStub, proxyEvent } from '../support/proxy-event.js';

type Result = { statusCode: number; headers: Record<string, string>; body: string };

const invoke = async (handler: unknown): Promise<Result> =>
  (await (handler as (event: unknown, context: unknown) => Promise<Result>)(
    proxyEvent(),
    lambdaContextStub(),
  )) as Result;

/** A buffered endpoint answering `{ text }`. */
const answering = (text: string) => gatewayHandler({ auth: false }, async () => json(200, { text }));

/** The size of the Lambda payload for a proxy result, as Lambda counts it. */
const payloadBytes = (result: Result) => Buffer.byteLength(JSON.stringify(result));

describe('a buffered answer and the 6 MB Lambda payload limit', () => {
  it('goes out untouched just under the limit', async () => {
    const text = 'a'.repeat(BUFFERED_RESPONSE_LIMIT_BYTES - 1024);

    const response = await invoke(answering(text));

    expect(response.statusCode).toBe(200);
    expect(JSON.parse(response.body).text).toHaveLength(text.length);
    expect(payloadBytes(response)).toBeLessThanOrEqual(BUFFERED_RESPONSE_LIMIT_BYTES);
  });

  it('becomes a complete 502 response_too_large envelope, with its request id, just over the limit', async () => {
    const response = await invoke(answering('a'.repeat(BUFFERED_RESPONSE_LIMIT_BYTES)));

    expect(response.statusCode).toBe(502);
    expect(response.headers['x-request-id']).toBe('req-test-1');
    expect(JSON.parse(response.body).error).toMatchObject({ type: 'server_error', code: 'response_too_large' });
    expect(payloadBytes(response)).toBeLessThan(1024);
  });

  it('is measured as Lambda measures it: a body that grows when escaped into the payload is refused', async () => {
    // 3.5 MB of quotes is 7 MB of body once JSON-encoded, and 14 MB in the payload.
    const response = await invoke(answering('"'.repeat(3.5 * 1024 * 1024)));

    expect(response.statusCode).toBe(502);
    expect(JSON.parse(response.body).error.code).toBe('response_too_large');
  });

  it("is, past the gateway's own check, what API Gateway gives when Lambda refuses the payload: a bare 502", () => {
    const result = { statusCode: 200, headers: {}, body: 'é'.repeat(BUFFERED_RESPONSE_LIMIT_BYTES / 2) };

    expect(overPayloadLimit(result, 'model-gateway-admin')).toEqual({
      statusCode: 502,
      headers: { 'content-type': 'application/json', 'x-amzn-errortype': 'InternalServerErrorException' },
      body: '{"message":"Internal server error"}',
    });
    expect(
      overPayloadLimit(
        { ...result, body: 'é'.repeat(BUFFERED_RESPONSE_LIMIT_BYTES / 2 - 1024) },
        'model-gateway-admin',
      ),
    ).toBeUndefined();
  });
});
