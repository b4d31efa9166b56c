import { startLocalGateway } from './local-gateway.js';

/** `npm start`: the whole API on this machine (DESIGN §3.1). */
const main = async () => {
  const dataDir = process.env.GATEWAY_DATA_DIR ?? '.gateway';
  const external = process.env.DYNAMODB_ENDPOINT || undefined;
  const store = external ?? (dataDir === 'memory' ? 'in memory' : dataDir);
  const gateway = await startLocalGateway({
    host: process.env.HOST ?? '127.0.0.1',
    port: Number(process.env.PORT ?? 8787),
    dataDir,
    dynamodbEndpoint: external,
    adminKey: process.env.GATEWAY_ADMIN_KEY || undefined,
    configPath: process.env.GATEWAY_CONFIG || undefined,
  });
  if (gateway.adminKeyCreated) {
    process.stdout.write(
      `Admin key (shown once, keep it): ${gateway.adminKey}\n` +
        'Set GATEWAY_ADMIN_KEY to choose your own instead.\n',
    );
  }
  process.stdout.write(`model-gateway listening on ${gateway.url} (store: ${store})\n`);
  process.stdout.write(`Console: ${gateway.consoleUrl} (sign in with an admin key)\n`);

  const stop = () => {
    gateway.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
};

main().catch((error: unknown) => {
  process.stderr.write(`model-gateway failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
