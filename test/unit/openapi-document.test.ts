import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildOpenApiDocument, openApiText } from '../../infra/openapi/openapi-document.js';
import { routes } from '../../functions/shared/routes.js';

const committedText = readFileSync('docs/openapi.json', 'utf8');
const committed = JSON.parse(committedText) as { paths: Record<string, Record<string, unknown>> };

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document, by a maintained validator', async () => {
    const result = await new Validator().validate(committedText);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('holds every route the gateway serves, with its method', () => {
    const missing = routes
      .filter((route) => !committed.paths[route.path]?.[route.method.toLowerCase()])
      .map((route) => `${route.method} ${route.path}`);
    expect(missing).toEqual([]);
  });

  it('is what the request schemas generate today (run `npm run openapi` after changing a route or schema)', () => {
    expect(committedText).toBe(openApiText());
  });

  it('refuses a route that has no description, so a new route is documented when it is added', () => {
    expect(() =>
      buildOpenApiDocument([...routes, { method: 'GET', path: '/v1/undocumented', group: 'models' }]),
    ).toThrow(/GET \/v1\/undocumented has no entry/);
  });

  it('describes request bodies from the same schemas the handlers validate with', () => {
    const document = buildOpenApiDocument() as { components: { schemas: Record<string, { properties?: object }> } };
    const chat = document.components.schemas.ChatCompletionRequest!;
    expect(Object.keys(chat.properties ?? {})).toEqual(expect.arrayContaining(['model', 'messages', 'stream']));
  });
});
