import { bootstrapAdminKey } from './local/bootstrap.js';

/**
 * `npm run admin-key`: gives a deployed gateway its first admin key, written straight into its
 * tables with your AWS credentials. Table names come from the stack outputs:
 *   GATEWAY_TABLE_KEYS=<KeysTableName> GATEWAY_TABLE_ACCOUNTS=<AccountsTableName> npm run admin-key
 * With GATEWAY_ADMIN_KEY set, that key is registered; otherwise one is created and printed once.
 */
const main = async () => {
  if (!process.env.GATEWAY_TABLE_KEYS || !process.env.GATEWAY_TABLE_ACCOUNTS) {
    throw new Error(
      'Set GATEWAY_TABLE_KEYS and GATEWAY_TABLE_ACCOUNTS to the KeysTableName and AccountsTableName stack outputs.',
    );
  }
  const result = await bootstrapAdminKey(process.env.GATEWAY_ADMIN_KEY || undefined);
  if (result.created) process.stdout.write(`Admin key (shown once, keep it): ${result.key}\n`);
  else if (result.key) process.stdout.write('GATEWAY_ADMIN_KEY is registered as an admin key.\n');
  else
    process.stdout.write('An admin account exists already. Set GATEWAY_ADMIN_KEY to register a key of your choice.\n');
};

main().catch((error: unknown) => {
  process.stderr.write(`admin-key failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
