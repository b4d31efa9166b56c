import type { GatewayRequest } from '../../functions/shared/middleware/gateway-handler.js';
import type { GatewayResponse } from '../../functions/shared/http/response.js';
import { routesIn, routeTable, type Route } from '../../functions/shared/middleware/route-table.js';

/** The admin and console functions: one handler for a table of routes, each loaded on its first request. */
describe('a table of routes', () => {
  const requestFor = (httpMethod: string, resource: string, path = resource) =>
    ({ event: { httpMethod, resource, path } }) as unknown as GatewayRequest<unknown>;
  const answer = (name: string) => ({ statusCode: 200, headers: {}, body: name }) as unknown as GatewayResponse;

  /** A module of two routes, and how often it was imported. */
  const moduleOfTwo = () => {
    const imports = { count: 0 };
    const load = async () => {
      imports.count += 1;
      return { list: (async () => answer('list')) as Route, get: (async () => answer('get')) as Route };
    };
    return { imports, load };
  };

  it('answers by method and resource, importing a route’s module only when it is asked for', async () => {
    const { imports, load } = moduleOfTwo();
    const keys = routesIn(load);
    const handler = routeTable({ 'GET /keys': keys('list'), 'GET /keys/{id}': keys('get') });
    expect(imports.count).toBe(0);
    await expect(handler(requestFor('GET', '/keys'))).resolves.toMatchObject({ body: 'list' });
    await expect(handler(requestFor('GET', '/keys'))).resolves.toMatchObject({ body: 'list' });
    expect(imports.count).toBe(1);
    await expect(handler(requestFor('GET', '/keys/{id}', '/keys/k1'))).resolves.toMatchObject({ body: 'get' });
  });

  it('loads a route once for concurrent first requests, and again after a failed load', async () => {
    let loads = 0;
    const flaky = routesIn(async () => {
      loads += 1;
      await new Promise((resolve) => setImmediate(resolve));
      if (loads === 1) throw new Error('chunk missing');
      return { list: (async () => answer('list')) as Route };
    });
    const handler = routeTable({ 'GET /keys': flaky('list') });
    await expect(
      Promise.all([handler(requestFor('GET', '/keys')), handler(requestFor('GET', '/keys'))]),
    ).rejects.toThrow('chunk missing');
    expect(loads).toBe(1);
    await expect(
      Promise.all([handler(requestFor('GET', '/keys')), handler(requestFor('GET', '/keys'))]),
    ).resolves.toHaveLength(2);
    expect(loads).toBe(2);
  });

  it('refuses a method the resource does not take with 405 and the ones it does, and an unknown resource with 404', async () => {
    const { load } = moduleOfTwo();
    const keys = routesIn(load);
    const handler = routeTable({ 'GET /keys/{id}': keys('get'), 'DELETE /keys/{id}': keys('get') });
    await expect(handler(requestFor('PUT', '/keys/{id}', '/keys/k1'))).rejects.toMatchObject({
      status: 405,
      headers: { allow: 'GET, DELETE' },
    });
    await expect(handler(requestFor('GET', '/nowhere'))).rejects.toMatchObject({ status: 404, code: 'unknown_url' });
    await expect(handler(requestFor('GET', 'constructor'))).rejects.toMatchObject({ status: 404 });
  });
});
