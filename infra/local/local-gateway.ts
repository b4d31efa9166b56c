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
import { answerConnect, answerMalformedRequest, expectationFailed, missingHost } from './answer-malformed-request.js';
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
import { RunningRequests } from './running-requests.js';
import { storeUnavailable } from '../../functions/shared/store/store-unavailable.js';
import { shuttingDown, storeReachable } from './store-health.js';

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
    const running = new RunningRequests();
    let stopping = false;
    const refuse = (request: IncomingMessage, response: ServerResponse, refusal: Error) =>
      writeError(response, refusal, randomUUID(), errorFormatForTarget(request.url ?? '/'));
    /** /health answered here when the store is not there: a handler would fail on it instead. */
    const serveHealth = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
      let reachable: boolean;
      try {
        reachable = await storeReachable(endpoint, embedded);
      } catch (error) {
        log.error('local runtime failed a request', { error: String(error) });
        response.destroy();
        return running.ended();
      }
      if (!reachable) {
        refuse(request, response, storeUnavailable());
        return running.ended();
      }
      handleRequest(request, response, running.ended, options);
    };
    /** One request, refused here or handled; `running` hears when its invocation has ended. */
    const serve = (request: IncomingMessage, response: ServerResponse): void => {
      if (stopping) {
        refuse(request, response, shuttingDown());
        return running.ended();
      }
      // Node's own check would answer a bare 400; the client gets the envelope, as for any malformed request.
      if (request.headers.host === undefined && request.httpVersion === '1.1') {
        refuse(request, response, missingHost());
        return running.ended();
      }
      if (request.method === 'GET' && request.url?.split('?')[0] === '/health') {
        void serveHealth(request, response);
        return;
      }
      handleRequest(request, response, running.ended, options);
    };
    const server = createServer({ requireHostHeader: false }, (request, response) => {
      running.started();
      serve(request, response);
    });
    server.keepAliveTimeout = 65_000;
    server.on('clientError', answerMalformedRequest);
    server.on('connect', answerConnect);
    // An Expect other than 100-continue: Node would answer a bare 417.
    server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
      refuse(request, response, expectationFailed()),
    );
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
          await running.settledWithin(options.drainMs ?? DRAIN_MS);
          server.closeAllConnections();
          await running.settledWithin(RECORD_MS);
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
