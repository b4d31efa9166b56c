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
  // Memory sizes from `npm run bench:lambda` (docs/cost.md, runs of 6 December 2026): the smallest at
  // which a paced request adds at most 2 ms p50 and 20 ms p99, a stream's first byte at most 2 ms and
  // a 1 MB prompt at most 300 ms, with no OOM. The figures beside each are added p50 / p99, CPU per
  // invocation (hello's) and peak memory at the chosen size: the chat function's from docs/cost.md's
  // table, the other groups' from a later run of 500 paced requests. The relaying groups (chat,
  // embeddings, images, audio) as the stack deploys them, with usage records delivered as log lines.
  // 128 MB: +0.2 / +4.9 ms, 0.73 ms (0.49), 42 MB.
  models: { streaming: false, memorySize: 128, timeoutSeconds: 10 },
  // Streams may run long: Lambda's streaming responses may last up to 15 minutes. With usage records
  // delivered as log lines (the stack's default), 256 MB: +0.8 / +6.0 ms, first byte +1.9 ms, 1 MB
  // prompt 189 ms, 0.86 ms (hello 0.25), 76 MB. At 128 MB the 1 MB prompt's CPU fills the 0.072 share
  // of a core: 297, 396 and 490 ms in three runs, against a 300 ms limit.
  chat: { streaming: true, memorySize: 256, timeoutSeconds: 900 },
  // 256 MB: +2.2 / +4.4 ms, 1.33 ms (0.39), 42 MB; 128 MB: +2.2 / +49.7 ms. Its request is one channel
  // list, a store read, and the store's time counts as added (no upstream is subtracted); an earlier run
  // read +1.9 / +2.3 ms at 128 MB. The admin API's heavy calls (usage pages, config applies) are
  // CPU-bound, and they are few: 256 MB costs little.
  admin: { streaming: false, memorySize: 256, timeoutSeconds: 29 },
  // 128 MB: +0.4 / +1.9 ms, 0.53 ms (0.58), 39 MB.
  fallback: { streaming: false, memorySize: 128, timeoutSeconds: 5 },
  // Streamed, though each answer is one JSON body: a buffered Lambda answer may not pass 6 MB, which a
  // large batch of vectors or a few images in b64_json do (a streamed one may reach 200 MB).
  // 256 MB: +0.9 / +11.6 ms, 1.09 ms (0.30), 67 MB. 128 MB met the targets in one run of two (+48.4 ms
  // p99 in the other; +36.7 ms in one of three before), and a large batch of inputs is CPU-bound as a
  // large prompt is.
  embeddings: { streaming: true, memorySize: 256, timeoutSeconds: 120 },
  // 256 MB: +0.9 / +2.8 ms, 0.81 ms (0.25), 70 MB. 128 MB met the targets in one run of two (+57.0 ms
  // p99 in the other).
  images: { streaming: true, memorySize: 256, timeoutSeconds: 300 },
  // Speech audio is streamed as binary, as it arrives. 512 MB: +1.7 / +10.4 ms, 1.83 ms (0.36), 64 MB.
  // At 256 MB, +19.3 and +23.0 ms p99 in two runs (+53.8 and +55.2 ms before records went to the log):
  // a request costs about 1.5 ms of CPU beyond hello's (not yet profiled; the bench's answer is 200 KB
  // of audio in 16 KB pieces), and at 256 MB that stalls a request in a hundred on CPU throttling.
  audio: { streaming: true, memorySize: 512, timeoutSeconds: 300 },
  // The console's page and its API (functions/console). The table allows 128 MB (+0.1 / +1.9 ms, 0.58
  // ms) for its request, a settings read; its usage overview and CSV export are CPU-bound. 256 MB: +0.2 /
  // +0.8 ms, 0.37 ms (0.28), 43 MB.
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
