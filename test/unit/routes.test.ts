import { createRouter, routes } from '../../functions/shared/routes.js';

describe('createRouter', () => {
  const lookup = createRouter();

  it('finds a route and gives its path parameters as they stand in the path, as API Gateway does', () => {
    const found = lookup('GET', '/admin/v1/models/org%2Fmodel-1');

    expect(found.kind).toBe('found');
    if (found.kind !== 'found') return;
    expect(found.match.route.path).toBe('/admin/v1/models/{model}');
    expect(found.match.pathParameters).toEqual({ model: 'org%2Fmodel-1' });
  });

  it('tells a served path with the wrong method apart from an unknown path', () => {
    expect(lookup('DELETE', '/v1/models')).toEqual({ kind: 'wrong-method', allowed: ['GET'] });
    expect(lookup('GET', '/models')).toEqual({ kind: 'unknown' });
    expect(lookup('GET', '/v1/models/extra/segment')).toEqual({ kind: 'unknown' });
  });

  it('accepts a method in any letter case and a trailing slash', () => {
    expect(lookup('get', '/v1/models/').kind).toBe('found');
  });

  it('serves every declared route', () => {
    for (const route of routes) {
      const concretePath = route.path.replace(/\{[^}]+\}/g, 'x');
      const found = lookup(route.method, concretePath);
      expect(found.kind === 'found' && found.match.route).toEqual(route);
    }
  });
});
