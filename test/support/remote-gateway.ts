import type { LocalGatewayOptions } from '../../infra/local/local-gateway.js';
import { gatewayClient, type HttpResult, type TestGateway } from './gateway-client.js';
import { runId, type RemoteTarget } from './gateway-target.js';

/** What a test made on a shared gateway, to be removed (or, where nothing can be removed, switched off) at the end. */
interface Created {
  readonly channels: Set<string>;
  readonly models: Set<string>;
  readonly keys: Set<string>;
  readonly accounts: Set<string>;
}

const IN_PROCESS_OPTIONS: ReadonlyArray<keyof LocalGatewayOptions> = [
  'configPath',
  'dataDir',
  'dynamodbEndpoint',
  'store',
  'port',
  'host',
  'functionTimeouts',
];

/** Notes what an admin call created, from its path and answer. */
const track = (created: Created, method: string, path: string, result: HttpResult): void => {
  if (result.status >= 300) return;
  const [resource, id] = path
    .split('?')[0]!
    .replace(/^\/admin\/v1\//, '')
    .split('/');
  if (method === 'PUT' && resource === 'channels' && id) created.channels.add(decodeURIComponent(id));
  if (method === 'PUT' && resource === 'models' && id) created.models.add(decodeURIComponent(id));
  if (method === 'POST' && resource === 'keys' && typeof result.body?.id === 'string') created.keys.add(result.body.id);
  if (method === 'POST' && resource === 'accounts' && typeof result.body?.id === 'string')
    created.accounts.add(result.body.id);
  if (method === 'DELETE' && resource === 'channels' && id) created.channels.delete(decodeURIComponent(id));
  if (method === 'DELETE' && resource === 'models' && id) created.models.delete(decodeURIComponent(id));
};

/**
 * A running gateway (a separate `npm start`, a deployed stage) as the suite's gateway. Start options
 * cannot reach it, so a test that needs them is refused here rather than silently run without them.
 * On `close`, what the test made goes: its channels and model settings are deleted, its keys revoked
 * and its accounts disabled (accounts and keys stay listed for audit; the API deletes neither).
 */
export const connectRemoteGateway = async (
  target: RemoteTarget,
  options: LocalGatewayOptions,
): Promise<TestGateway> => {
  const unsupported = IN_PROCESS_OPTIONS.filter((name) => options[name] !== undefined);
  if (unsupported.length > 0) {
    throw new Error(
      `A remote gateway takes no start options (${unsupported.join(', ')}): mark this case in-process only.`,
    );
  }
  const created: Created = { channels: new Set(), models: new Set(), keys: new Set(), accounts: new Set() };
  const cleanUp = async (): Promise<void> => {
    const steps: Array<Promise<HttpResult>> = [
      ...[...created.channels].map((id) => client.admin('DELETE', `/admin/v1/channels/${encodeURIComponent(id)}`)),
      ...[...created.models].map((id) => client.admin('DELETE', `/admin/v1/models/${encodeURIComponent(id)}`)),
      ...[...created.keys].map((id) => client.admin('DELETE', `/admin/v1/keys/${encodeURIComponent(id)}`)),
      ...[...created.accounts].map((id) =>
        client.admin('PATCH', `/admin/v1/accounts/${encodeURIComponent(id)}`, { status: 'disabled' }),
      ),
    ];
    const results = await Promise.all(steps);
    const failed = results.filter((result) => result.status >= 300 && result.status !== 404);
    if (failed.length > 0) throw new Error(`clean-up left ${failed.length} resources behind: ${failed[0]!.text}`);
  };
  // Accounts carry the run's id: on a shared stage, whose they are is plain to see.
  const client = gatewayClient(
    target.url,
    target.adminKey,
    () => cleanUp(),
    (method, path, result) => track(created, method, path, result),
    `test account ${runId}`,
  );
  return client;
};
