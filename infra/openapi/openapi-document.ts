import { routes, type RouteDefinition } from '../../functions/shared/routes.js';
import * as z from '../../functions/shared/schemas/zod.js';
import { gatewayVersion } from '../../functions/shared/version.js';
import { routeDocs, type ErrorProtocol, type RouteAccess, type RouteDoc } from './route-docs.js';

type JsonObject = Record<string, unknown>;

/** The security requirement of each kind of access: any one of the listed schemes will do. */
const securityOf: Readonly<Record<RouteAccess, readonly JsonObject[]>> = {
  none: [],
  'client-key': [{ bearerKey: [] }],
  'messages-key': [{ bearerKey: [] }, { anthropicKey: [] }],
  'models-key': [{ bearerKey: [] }, { anthropicKey: [] }, { googleKey: [] }, { googleKeyQuery: [] }],
  'gemini-key': [{ bearerKey: [] }, { googleKey: [] }, { googleKeyQuery: [] }],
  admin: [{ bearerKey: [] }],
  console: [{ consoleSession: [] }],
};

const securitySchemes = {
  bearerKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'A gateway key (`sk-…`); admin-role keys for /admin/v1.',
  },
  anthropicKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-api-key',
    description: 'A gateway key, as Anthropic clients send it.',
  },
  googleKey: {
    type: 'apiKey',
    in: 'header',
    name: 'x-goog-api-key',
    description: 'A gateway key, as Google clients send it.',
  },
  googleKeyQuery: { type: 'apiKey', in: 'query', name: 'key', description: 'A gateway key in the query string.' },
  consoleSession: {
    type: 'http',
    scheme: 'bearer',
    description: 'A console session token from POST /console/api/session.',
  },
};

const errorSchemas = {
  OpenAIError: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['message', 'type', 'code'],
        properties: {
          message: { type: 'string' },
          type: { type: 'string' },
          param: { type: ['string', 'null'], description: 'The path of the field at fault, e.g. `messages[0].role`.' },
          code: { type: ['string', 'null'] },
        },
      },
    },
  },
  AnthropicError: {
    type: 'object',
    required: ['type', 'error'],
    properties: {
      type: { const: 'error' },
      error: {
        type: 'object',
        required: ['type', 'message'],
        properties: { type: { type: 'string' }, message: { type: 'string' } },
      },
    },
  },
  GeminiError: {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message', 'status'],
        properties: { code: { type: 'integer' }, message: { type: 'string' }, status: { type: 'string' } },
      },
    },
  },
};

const errorSchemaName: Readonly<Record<ErrorProtocol, keyof typeof errorSchemas>> = {
  openai: 'OpenAIError',
  anthropic: 'AnthropicError',
  gemini: 'GeminiError',
};

/** The JSON Schema (2020-12, OpenAPI 3.1's dialect) of what a client may send, from the zod schema itself. */
const requestSchema = (schema: () => z.ZodMiniType): JsonObject => {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema(), {
    io: 'input',
    unrepresentable: 'any',
  }) as JsonObject;
  return rest;
};

const pathParameters = (path: string): JsonObject[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));

const successResponse = (doc: RouteDoc): JsonObject => {
  const content: JsonObject = doc.binary
    ? { 'application/octet-stream': { schema: { type: 'string', contentEncoding: 'binary' } } }
    : { 'application/json': { schema: { type: 'object' } } };
  if (doc.streams) content['text/event-stream'] = { schema: { type: 'string', description: 'Server-sent events.' } };
  return { description: 'Success', content };
};

const operationOf = (route: RouteDefinition, doc: RouteDoc): JsonObject => {
  const errors = errorSchemaName[doc.errors ?? 'openai'];
  const operation: JsonObject = {
    operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ?? '').toUpperCase())}`,
    summary: doc.summary,
    tags: [doc.tag],
    security: securityOf[doc.access],
    responses: {
      '200': successResponse(doc),
      default: {
        description: 'An error, in the envelope of the path (docs/errors.md)',
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${errors}` } } },
      },
    },
  };
  const parameters = pathParameters(route.path);
  if (parameters.length > 0) operation.parameters = parameters;
  if (doc.body) {
    const schema = { $ref: `#/components/schemas/${doc.body.name}` };
    operation.requestBody = { required: true, content: { 'application/json': { schema } } };
  }
  return operation;
};

/** Each request body's schema once, by its name, however many routes take it. */
const requestSchemas = (documented: readonly RouteDoc[]): Record<string, JsonObject> => {
  const schemas: Record<string, JsonObject> = {};
  for (const { body } of documented) if (body) schemas[body.name] ??= requestSchema(body.schema);
  return schemas;
};

/**
 * The OpenAPI 3.1 document of every route the gateway serves, request bodies generated from the same
 * zod schemas the handlers validate with. Throws for a route that routeDocs does not describe.
 */
export const buildOpenApiDocument = (table: readonly RouteDefinition[] = routes): JsonObject => {
  const paths: Record<string, JsonObject> = {};
  const documented: RouteDoc[] = [];
  for (const route of table) {
    const doc = routeDocs[`${route.method} ${route.path}`];
    if (!doc) throw new Error(`${route.method} ${route.path} has no entry in infra/openapi/route-docs.ts`);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route, doc);
    documented.push(doc);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'model-gateway',
      version: gatewayVersion,
      description:
        'An OpenAI-compatible model-access gateway: the client API under /v1 (with Anthropic- and Gemini-style paths) and the admin API under /admin/v1.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    paths,
    components: { schemas: { ...requestSchemas(documented), ...errorSchemas }, securitySchemes },
  };
};

/** The document as it is kept in docs/openapi.json and served: two-space JSON and a final newline. */
export const openApiText = (document: JsonObject = buildOpenApiDocument()): string =>
  `${JSON.stringify(document, null, 2)}\n`;
