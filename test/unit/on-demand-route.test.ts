import { onDemand } from '../../functions/shared/middleware/on-demand-route.js';
import type { GatewayRequest } from '../../functions/shared/middleware/gateway-handler.js';
import type { GatewayResponse } from '../../functions/shared/http/response.js';

/** The admin and console functions' routes load on their first request: once, and again after a failed load. */
describe('a route loaded on demand', () => {
  const request = {} as GatewayRequest<unknown>;
  const answer = { statusCode: 200, headers: {}, body: '{}' } as unknown as GatewayResponse;

  it('loads its module once, however many first requests arrive together', async () => {
    let loads = 0;
    const route = onDemand(async () => {
      loads += 1;
      return async () => answer;
    });
    await expect(Promise.all([route(request), route(request), route(request)])).resolves.toEqual([
      answer,
      answer,
      answer,
    ]);
    await route(request);
    expect(loads).toBe(1);
  });

  it('fails the requests of a failed load, and loads again on the next request', async () => {
    let loads = 0;
    const route = onDemand(async () => {
      loads += 1;
      if (loads === 1) throw new Error('chunk missing');
      return async () => answer;
    });
    await expect(Promise.all([route(request), route(request)])).rejects.toThrow('chunk missing');
    await expect(route(request)).resolves.toBe(answer);
    expect(loads).toBe(2);
  });
});
