import { startLocalGateway } from '../../infra/local/local-gateway.js';
import { handlerPathCpuMicros, handlerPathInvocations } from './handler-path.js';

/**
 * The gateway under measurement, in its own process so that its CPU time and memory are its own, on
 * the bench's stand-in for DynamoDB (store-stand-in.ts, at `BENCH_STORE_ENDPOINT`). Runs the handler
 * path alone when the bench asks (`handler-path`), and says how many invocations that made in all.
 */
const dynamodbEndpoint = process.env.BENCH_STORE_ENDPOINT;
if (!dynamodbEndpoint) throw new Error('BENCH_STORE_ENDPOINT: the store stand-in the gateway is measured on');
// The key, channel and model caches stay on, as with the embedded store: this process is the only writer.
process.env.GATEWAY_CACHE_TTL_MS ??= '30000';
const gateway = await startLocalGateway({
  port: 0,
  dataDir: 'memory',
  adminKey: process.env.BENCH_ADMIN_KEY,
  dynamodbEndpoint,
});

process.send!({ kind: 'ready', url: gateway.url });
process.on('message', (message: { kind: string; key?: string; body?: string; count?: number }) => {
  if (message.kind === 'handler-path') {
    void handlerPathCpuMicros(message.key!, message.body!, message.count!).then((cpu) =>
      process.send!({ kind: 'handler-path', cpu, invocations: handlerPathInvocations() }),
    );
  }
  if (message.kind === 'stop') void gateway.close().then(() => process.exit(0));
});
process.on('disconnect', () => void gateway.close().then(() => process.exit(0)));
