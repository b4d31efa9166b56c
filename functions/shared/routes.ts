import { nullPrototypeRecord } from './http/null-prototype.js';

/**
 * Every path the gateway serves, defined once: the CDK stack builds its REST resources from this
 * table, and the local runtime routes with it, so the two cannot drift.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One Lambda function per endpoint group (DESIGN §2). */
export type FunctionGroup = 'models' | 'chat' | 'admin' | 'fallback' | 'embeddings' | 'images' | 'audio' | 'console';

export interface FunctionGroupDefinition {
  /** Streamed through Lambda response streaming (REST `responseTransferMode: STREAM`). */
  readonly streaming: boolean;
  readonly memorySize: number;
  readonly timeoutSeconds: number;
}

export const functionGroups: Readonly<Record<FunctionGroup, FunctionGroupDefinition>> = {
  models: { streaming: false, memorySize: 256, timeoutSeconds: 10 },
  // Streams may run long: Lambda's streaming responses may last up to 15 minutes. 256 MB, from
  // `npm run bench:lambda` (docs/cost.md): CPU per invocation 3.84 ms (hello 0.88) at 256 MB against
  // 3.46 ms at 512 MB, peak memory 59 MB, no OOM; a paced request added +0.7 / +5.2 ms p50 / p99, a
  // stream's first byte +0.8 ms and a 1 MB prompt took 104 ms on a quiet host (issue 49's table).
  // At 128 MB the CPU share (0.072) is spent: +42.7 ms p99 and 203 ms for the 1 MB prompt there.
  chat: { streaming: true, memorySize: 256, timeoutSeconds: 900 },
  admin: { streaming: false, memorySize: 256, timeoutSeconds: 29 },
  fallback: { streaming: false, memorySize: 128, timeoutSeconds: 5 },
  // Streamed, though each answer is one JSON body: a buffered Lambda answer may not pass 6 MB, which a
  // large batch of vectors or a few images in b64_json do (a streamed one may reach 200 MB).
  embeddings: { streaming: true, memorySize: 256, timeoutSeconds: 120 },
  images: { streaming: true, memorySize: 512, timeoutSeconds: 300 },
  // Speech audio is streamed as binary, as it arrives.
  audio: { streaming: true, memorySize: 256, timeoutSeconds: 300 },
  // The console's page and its API (functions/console).
  console: { streaming: false, memorySize: 256, timeoutSeconds: 29 },
};

export interface RouteDefinition {
  readonly method: HttpMethod;
  /** API Gateway resource path, `{name}` for a path parameter. */
  readonly path: string;
  readonly group: FunctionGroup;
}

const consoleRoutes: readonly RouteDefinition[] = [
  { method: 'GET', path: '/console', group: 'console' },
  { method: 'GET', path: '/console/{asset}', group: 'console' },
  ...(
    [
      ['GET', '/console/api/config'],
      ['POST', '/console/api/session'],
      ['DELETE', '/console/api/session'],
      ['GET', '/console/api/me'],
      ['GET', '/console/api/keys'],
      ['POST', '/console/api/keys'],
      ['PATCH', '/console/api/keys/{id}'],
      ['DELETE', '/console/api/keys/{id}'],
      ['GET', '/console/api/models'],
      ['GET', '/console/api/usage'],
      ['GET', '/console/api/members'],
      ['PUT', '/console/api/members/{id}'],
      ['DELETE', '/console/api/members/{id}'],
      ['POST', '/console/api/mfa'],
      ['GET', '/console/api/overview'],
      ['GET', '/console/api/requests'],
      ['GET', '/console/api/channels/health'],
      ['POST', '/console/api/channels/{id}/test'],
      ['GET', '/console/api/audit'],
      ['GET', '/console/api/budgets'],
      ['PUT', '/console/api/budgets/{level}/{id}'],
    ] as const
  ).map(([method, path]) => ({ method, path, group: 'console' as const })),
];

export const routes: readonly RouteDefinition[] = [
  { method: 'GET', path: '/health', group: 'fallback' },
  { method: 'GET', path: '/openapi.json', group: 'fallback' },
  { method: 'GET', path: '/v1/models', group: 'models' },
  { method: 'POST', path: '/v1/chat/completions', group: 'chat' },
  { method: 'POST', path: '/v1/messages', group: 'chat' },
  { method: 'POST', path: '/v1/messages/count_tokens', group: 'chat' },
  { method: 'GET', path: '/v1beta/models', group: 'models' },
  // API Gateway cannot have `{model}:generateContent` as one path part: the handler splits on ':'.
  { method: 'POST', path: '/v1beta/models/{modelAction}', group: 'chat' },
  // @google/genai 1.x+ defaults to the `v1` API version: the same Gemini-style methods under /v1.
  { method: 'POST', path: '/v1/models/{modelAction}', group: 'chat' },
  { method: 'POST', path: '/v1/responses', group: 'chat' },
  // Stored Responses: served by the chat function, which streams, so a large one is not held to 6 MB.
  { method: 'GET', path: '/v1/responses/{id}', group: 'chat' },
  { method: 'DELETE', path: '/v1/responses/{id}', group: 'chat' },
  { method: 'GET', path: '/v1/responses/{id}/input_items', group: 'chat' },
  { method: 'POST', path: '/v1/embeddings', group: 'embeddings' },
  { method: 'POST', path: '/v1/images/generations', group: 'images' },
  { method: 'POST', path: '/v1/audio/speech', group: 'audio' },

  { method: 'POST', path: '/admin/v1/accounts', group: 'admin' },
  { method: 'GET', path: '/admin/v1/accounts', group: 'admin' },
  { method: 'GET', path: '/admin/v1/accounts/{id}', group: 'admin' },
  { method: 'PATCH', path: '/admin/v1/accounts/{id}', group: 'admin' },
  { method: 'DELETE', path: '/admin/v1/accounts/{id}', group: 'admin' },
  { method: 'POST', path: '/admin/v1/keys', group: 'admin' },
  { method: 'GET', path: '/admin/v1/keys', group: 'admin' },
  { method: 'GET', path: '/admin/v1/keys/{id}', group: 'admin' },
  { method: 'PATCH', path: '/admin/v1/keys/{id}', group: 'admin' },
  { method: 'DELETE', path: '/admin/v1/keys/{id}', group: 'admin' },
  { method: 'GET', path: '/admin/v1/channels', group: 'admin' },
  { method: 'GET', path: '/admin/v1/channels/{id}', group: 'admin' },
  { method: 'PUT', path: '/admin/v1/channels/{id}', group: 'admin' },
  { method: 'DELETE', path: '/admin/v1/channels/{id}', group: 'admin' },
  { method: 'GET', path: '/admin/v1/models', group: 'admin' },
  { method: 'GET', path: '/admin/v1/models/{model}', group: 'admin' },
  { method: 'PUT', path: '/admin/v1/models/{model}', group: 'admin' },
  { method: 'DELETE', path: '/admin/v1/models/{model}', group: 'admin' },
  { method: 'GET', path: '/admin/v1/usage', group: 'admin' },
  { method: 'GET', path: '/admin/v1/metrics', group: 'admin' },
  { method: 'POST', path: '/admin/v1/apply', group: 'admin' },
  { method: 'GET', path: '/admin/v1/members', group: 'admin' },
  { method: 'GET', path: '/admin/v1/audit', group: 'admin' },
  { method: 'PUT', path: '/admin/v1/members/{id}', group: 'admin' },
  { method: 'DELETE', path: '/admin/v1/members/{id}', group: 'admin' },

  ...consoleRoutes,
];

export interface RouteMatch {
  readonly route: RouteDefinition;
  readonly pathParameters: Record<string, string>;
}

export type RouteLookup =
  | { readonly kind: 'found'; readonly match: RouteMatch }
  | { readonly kind: 'wrong-method'; readonly allowed: readonly HttpMethod[] }
  | { readonly kind: 'unknown' };

interface CompiledPath {
  readonly pattern: RegExp;
  readonly names: readonly string[];
  readonly byMethod: Map<string, RouteDefinition>;
}

const compilePath = (path: string): Omit<CompiledPath, 'byMethod'> => {
  const names: string[] = [];
  const source = path
    .split('/')
    .map((segment) => {
      const parameter = /^\{([^}+]+)\}$/.exec(segment);
      if (!parameter) return segment.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      names.push(parameter[1]!);
      return '([^/]+)';
    })
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`), names };
};

/** Builds a matcher over a route table; compiled once, then each lookup is a few regex tests. */
export const createRouter = (table: readonly RouteDefinition[] = routes) => {
  const paths = new Map<string, CompiledPath>();
  for (const route of table) {
    let compiled = paths.get(route.path);
    if (!compiled) {
      compiled = { ...compilePath(route.path), byMethod: new Map() };
      paths.set(route.path, compiled);
    }
    compiled.byMethod.set(route.method, route);
  }
  const compiledPaths = [...paths.values()];

  return (method: string, path: string): RouteLookup => {
    for (const compiled of compiledPaths) {
      const found = compiled.pattern.exec(path);
      if (!found) continue;
      const route = compiled.byMethod.get(method.toUpperCase());
      if (!route) return { kind: 'wrong-method', allowed: [...compiled.byMethod.keys()] as HttpMethod[] };
      const pathParameters = nullPrototypeRecord<string>();
      // As API Gateway passes them: percent-encoded, decoded by the handler (gateway-handler.ts).
      compiled.names.forEach((name, index) => {
        pathParameters[name] = found[index + 1]!;
      });
      return { kind: 'found', match: { route, pathParameters } };
    }
    return { kind: 'unknown' };
  };
};
