import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CONCURRENT_INVOCATIONS_VARIABLE } from '../../functions/shared/aws/concurrent-invocations.js';
import { applyGatewayConfig } from '../../functions/shared/config/apply-config.js';
import { loadGatewayConfigFile } from '../../functions/shared/config/gateway-config.js';
import { log } from '../../functions/shared/log.js';
import { collectMetricsSummary } from '../../functions/shared/observability/metrics-summary.js';
import { resetStoreConnection } from '../../functions/shared/store/connection.js';
import { invalidateCaches } from '../../functions/shared/store/ttl-cache.js';
import { answerMalformedRequest } from './answer-malformed-request.js';
import { bootstrapAdminKey, ensureDemoChannel } from './bootstrap.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { prepareLocalConsole } from './console-web.js';
import { ensureTables, startEmbeddedStore, type EmbeddedStore, type EmbeddedStoreMode } from './embedded-store.js';
import type { FunctionTimeouts } from './function-timeout.js';
import { handleRequest } from './handle-request.js';
import { writeError } from './invoke-handler.js';
import { errorFormatForTarget } from '../../functions/shared/http/error-format.js';
import { installLambdaStreamingGlobals } from './lambda-streaming.js';
import { listen } from './listen.js';
import { shuttingDown, storeReachable, storeUnavailable } from './store-health.js';

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
  /**
   * How long `close()` lets requests in flight finish (default 10 s) before it aborts them; aborted
   * ones are recorded as such, and the store closes only after every record is written.
   */
  readonly drainMs?: number;
  /** Function timeouts (seconds) instead of the groups' own, enforced as Lambda does. */
  readonly functionTimeouts?: FunctionTimeouts;
}

export interface LocalGateway {
  readonly url: string;
  /** Where the console is served (`<url>/console/`). */
  readonly consoleUrl: string;
  /** The admin key given, or created on this store's first start (`undefined` on later starts). */
  readonly adminKey: string | undefined;
  readonly adminKeyCreated: boolean;
  /** The embedded store's process, when it runs in a child process (for measuring it apart). */
  readonly storeProcessId: number | undefined;
  /**
   * Stops accepting, lets requests in flight finish (`drainMs`), aborts the rest, waits for their
   * usage records, then closes the store and releases the data dir. Safe to call more than once.
   */
  close(): Promise<void>;
}

/** How long requests in flight may take to finish when the gateway is asked to stop. */
const DRAIN_MS = 10_000;
/** How long aborted requests may take to write their usage records before the store goes. */
const RECORD_MS = 5000;

/** Waits until every promise in `pending` (as it is now) has settled, or `ms` have passed. */
const settledWithin = async (pending: ReadonlySet<Promise<void>>, ms: number): Promise<void> => {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...pending]),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
};

/**
 * Starts the gateway on this machine: the embedded store (or an external endpoint), the same handler
 * modules Lambda runs behind an HTTP server that speaks API Gateway's proxy events, the admin key,
 * the declared configuration, and the demo channel when nothing else is configured.
 */
export const startLocalGateway = async (options: LocalGatewayOptions = {}): Promise<LocalGateway> => {
  installLambdaStreamingGlobals();
  // Every request is served in this one process, as on Lambda Managed Instances.
  process.env[CONCURRENT_INVOCATIONS_VARIABLE] = 'true';
  collectMetricsSummary();
  let embedded: EmbeddedStore | undefined;
  const dataDir = options.dataDir ?? '.gateway';
  // One gateway per data dir: the second start is refused before it touches the files.
  const lock: DataDirLock | undefined =
    options.dynamodbEndpoint || dataDir === 'memory' ? undefined : lockDataDir(dataDir);
  let endpoint: string;
  try {
    endpoint = options.dynamodbEndpoint ?? (embedded = await startEmbeddedStore(dataDir, options.store)).endpoint;
  } catch (error) {
    lock?.release();
    throw error;
  }
  process.env.DYNAMODB_ENDPOINT = endpoint;
  // Writes through this process clear its caches at once; another writer on a shared endpoint would not.
  process.env.GATEWAY_CACHE_TTL_MS ??= options.dynamodbEndpoint ? '0' : '30000';
  resetStoreConnection();
  invalidateCaches();

  try {
    await ensureTables(endpoint);
    const admin = await bootstrapAdminKey(options.adminKey);
    if (options.configPath) await applyGatewayConfig(await loadGatewayConfigFile(options.configPath));
    await ensureDemoChannel();
    await prepareLocalConsole();

    // Requests still running (their usage writes included): close() lets them finish before the store goes.
    const inFlight = new Set<Promise<void>>();
    let stopping = false;
    /** Answered here rather than by a handler: requests during shutdown, and /health without a store. */
    const refusalOf = async (request: IncomingMessage) => {
      if (stopping) return shuttingDown();
      if (
        request.method === 'GET' &&
        request.url?.split('?')[0] === '/health' &&
        !(await storeReachable(endpoint, embedded))
      ) {
        return storeUnavailable();
      }
      return undefined;
    };
    /** One request, refused here or handled; settles when its invocation has ended. */
    const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
      let refusal: Awaited<ReturnType<typeof refusalOf>>;
      try {
        refusal = await refusalOf(request);
      } catch (error) {
        log.error('local runtime failed a request', { error: String(error) });
        response.destroy();
        return;
      }
      if (refusal) {
        writeError(response, refusal, randomUUID(), errorFormatForTarget(request.url ?? '/'));
        return;
      }
      // Returned, not awaited: an invocation that runs on after its response does not hold this frame.
      return handleRequest(request, response, options);
    };
    const server = createServer((request, response) => {
      // handleRequest answers its own failures; this only keeps an unforeseen one from going unheard.
      const handling = serve(request, response).catch((error: unknown) =>
        log.error('local runtime failed a request', { error: String(error) }),
      );
      inFlight.add(handling);
      void handling.finally(() => inFlight.delete(handling));
    });
    server.keepAliveTimeout = 65_000;
    server.on('clientError', answerMalformedRequest);
    await listen(server, options.port ?? 8787, options.host ?? '127.0.0.1');
    const address = server.address() as AddressInfo;
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    let closing: Promise<void> | undefined;
    return {
      url: `http://${host}:${address.port}`,
      consoleUrl: `http://${host}:${address.port}/console/`,
      adminKey: admin.key,
      adminKeyCreated: admin.created,
      storeProcessId: embedded?.pid,
      close: () =>
        (closing ??= (async () => {
          stopping = true;
          const closed = new Promise<void>((resolve) => server.close(() => resolve()));
          server.closeIdleConnections();
          // A stream that never ends must not hold shutdown for ever: after the drain time, closing the
          // connections aborts what is left, and each aborted request records itself as aborted.
          await settledWithin(inFlight, options.drainMs ?? DRAIN_MS);
          server.closeAllConnections();
          await settledWithin(inFlight, RECORD_MS);
          await closed;
          resetStoreConnection();
          await embedded?.close();
          lock?.release();
        })()),
    };
  } catch (error) {
    resetStoreConnection();
    await embedded?.close();
    lock?.release();
    throw error;
  }
};
