import { adminKeyBox } from './admin-key-box.js';
import { startLocalGateway } from './local-gateway.js';
import { whenStopRequested } from './stop-requests.js';

/** One line on stderr, whatever the error holds: operators read it, nobody needs a stack here. */
const failureLine = (error: unknown) =>
  `model-gateway failed to start: ${(error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ')}\n`;

/** `npm start`: the whole API on this machine (DESIGN §3.1). */
const main = async () => {
  // Before anything starts, so that a stop asked for during start-up is honoured, not fatal.
  const stopRequested = whenStopRequested();
  // A person at a terminal reads one short line per request; a pipe (tests, CI, a log collector) gets JSON.
  if (!process.env.GATEWAY_LOG_FORMAT && process.stdout.isTTY) process.env.GATEWAY_LOG_FORMAT = 'text';
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
  process.stdout.write(`model-gateway listening on ${gateway.url} (store: ${store})\n`);
  process.stdout.write(`Console: ${gateway.consoleUrl} (sign in with an admin key)\n`);
  // Last, so that it is what the terminal shows when the start is done.
  if (gateway.adminKeyCreated && gateway.adminKey) process.stdout.write(adminKeyBox(gateway.adminKey));

  // Stop accepting, finish (or after a bound abort) the requests in flight, write their usage, then
  // stop the store: exit 0 when all of that went through.
  const reason = await stopRequested;
  process.stdout.write(`model-gateway stopping (${reason}): finishing the requests in flight\n`);
  try {
    await gateway.close();
  } catch (error) {
    process.stderr.write(
      `model-gateway did not stop cleanly: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exit(1);
  }
  process.stdout.write('model-gateway stopped\n');
  process.exit(0);
};

main().catch((error: unknown) => {
  process.stderr.write(failureLine(error));
  process.exit(1);
});
