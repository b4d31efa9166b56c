import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyGatewayConfig } from '../../functions/shared/config/apply-config.js';
import { loadGatewayConfigFile } from '../../functions/shared/config/gateway-config.js';
import { log } from '../../functions/shared/log.js';
import { MAX_BODY_BYTES } from '../../functions/shared/middleware/json-body.js';
import { createRouter, functionGroups } from '../../functions/shared/routes.js';
import { resetStore } from '../../functions/shared/store/client.js';
import { invalidateCaches } from '../../functions/shared/store/ttl-cache.js';
import { bootstrapAdminKey, ensureDemoChannel } from './bootstrap.js';
import { ensureTables, startEmbeddedStore, type EmbeddedStore, type EmbeddedStoreMode } from './embedded-store.js';
import { runAsFunction } from './function-scope.js';
import { loadHandler } from './handlers.js';
import { invokeHandler, lambdaContext, writeError } from './invoke-handler.js';
import { installLambdaStreamingGlobals } from './lambda-streaming.js';
import { buildProxyEvent } from './proxy-event.js';
import { readBody } from './read-body.js';

export interface LocalGatewayOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Folder of the embedded store's files, or `memory`. */
  readonly dataDir?: string;
  /** An external DynamoDB-compatible endpoint instead of the embedded engine. */
  readonly dynamodbEndpoint?: string;
  /**
   * Where the embedded engine runs: `child-process` (default) keeps it out of the gateway's event
   * loop, CPU time and memory, as DynamoDB is in production; `in-process` runs it in this process.
   */
  readonly store?: EmbeddedStoreMode;
  readonly adminKey?: string;
  readonly configPath?: string;
}

export interface LocalGateway {
  readonly url: string;
  /** The admin key given, or created on this store's first start (`undefined` on later starts). */
  readonly adminKey: string | undefined;
  readonly adminKeyCreated: boolean;
  /** The embedded store's process, when it runs in a child process (for measuring it apart). */
  readonly storeProcessId: number | undefined;
  close(): Promise<void>;
}

const lookup = createRouter();

const handleRequest = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const found = lookup(request.method ?? 'GET', url.pathname);
  // As on API Gateway: matched routes go to their group, everything else to the fallback function.
  const group = found.kind === 'found' ? found.match.route.group : 'fallback';
  const event = buildProxyEvent({
    request,
    url,
    body: await readBody(request, MAX_BODY_BYTES),
    resource: found.kind === 'found' ? found.match.route.path : '/{proxy+}',
    pathParameters: found.kind === 'found' ? found.match.pathParameters : { proxy: url.pathname.slice(1) },
  });
  const context = lambdaContext(`model-gateway-${group}`, event.requestContext.requestId, functionGroups[group].timeoutSeconds);
  const handler = await loadHandler(group);
  await runAsFunction(group, () => invokeHandler(handler, event, context, response));
};

/**
 * Starts the gateway on this machine: the embedded store (or an external endpoint), the same handler
 * modules Lambda runs behind an HTTP server that speaks API Gateway's proxy events, the admin key,
 * the declared configuration, and the demo channel when nothing else is configured.
 */
export const startLocalGateway = async (options: LocalGatewayOptions = {}): Promise<LocalGateway> => {
  installLambdaStreamingGlobals();
  let embedded: EmbeddedStore | undefined;
  const endpoint =
    options.dynamodbEndpoint ?? (embedded = await startEmbeddedStore(options.dataDir ?? '.gateway', options.store)).endpoint;
  process.env.DYNAMODB_ENDPOINT = endpoint;
  // Writes through this process clear its caches at once; another writer on a shared endpoint would not.
  process.env.GATEWAY_CACHE_TTL_MS ??= options.dynamodbEndpoint ? '0' : '30000';
  resetStore();
  invalidateCaches();

  try {
    await ensureTables(endpoint);
    const admin = await bootstrapAdminKey(options.adminKey);
    if (options.configPath) await applyGatewayConfig(await loadGatewayConfigFile(options.configPath));
    await ensureDemoChannel();

    // Requests still running (their usage writes included): close() lets them finish before the store goes.
    const inFlight = new Set<Promise<void>>();
    const server = createServer((request, response) => {
      const handling = handleRequest(request, response).catch((error: unknown) => {
        const status = (error as { status?: number }).status;
        if (!status || status >= 500) log.error('local runtime failed a request', { error: String(error) });
        // The rest of a refused body is not read: close the connection after answering.
        response.setHeader('connection', 'close');
        writeError(response, error, 'local');
      });
      inFlight.add(handling);
      void handling.finally(() => inFlight.delete(handling));
    });
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 8787, options.host ?? '127.0.0.1', () => resolve());
    });
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return {
      url: `http://${host}:${address.port}`,
      adminKey: admin.key,
      adminKeyCreated: admin.created,
      storeProcessId: embedded?.pid,
      close: async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        // A stream that never ends must not hold shutdown for ever: give the rest a few seconds.
        let grace: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.allSettled([...inFlight]),
          new Promise((resolve) => {
            grace = setTimeout(resolve, 5000);
          }),
        ]);
        clearTimeout(grace);
        server.closeAllConnections();
        await closed;
        resetStore();
        await embedded?.close();
      },
    };
  } catch (error) {
    resetStore();
    await embedded?.close();
    throw error;
  }
};
