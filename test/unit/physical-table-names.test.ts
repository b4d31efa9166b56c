import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * A deployed function finds its tables by the names the stack puts in its environment, read once at
 * its first store call (a function's environment is fixed at its start). Run in a fresh process, since
 * this test process has long since read them.
 */
test('a table name comes from its environment variable when set, and is read once', async () => {
  const script = [
    "const { physicalTableName } = await import('./functions/shared/store/tables.ts');",
    "const first = [physicalTableName('usage'), physicalTableName('keys')];",
    "process.env.GATEWAY_TABLE_USAGE = 'changed-later';",
    "console.log(JSON.stringify([...first, physicalTableName('usage')]));",
  ].join('\n');
  const { GATEWAY_TABLE_KEYS: _unset, ...environment } = process.env;
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '--eval', script],
    { env: { ...environment, GATEWAY_TABLE_USAGE: 'stage-x-UsageTable-1A2B' } },
  );

  // Set: the stack's name, kept when the variable changes later. Unset: the local runtime's name.
  expect(JSON.parse(stdout)).toEqual(['stage-x-UsageTable-1A2B', 'gateway-keys', 'stage-x-UsageTable-1A2B']);
});
