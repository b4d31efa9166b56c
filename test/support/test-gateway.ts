import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { startLocalGateway, type LocalGatewayOptions } from '../../infra/local/local-gateway.js';
import { gatewayClient, type TestGateway } from './gateway-client.js';
import { remoteTarget } from './gateway-target.js';
import { connectRemoteGateway } from './remote-gateway.js';

export type { HttpResult, TestGateway } from './gateway-client.js';

/**
 * The gateway under test: the local runtime in this process, on a free port and an in-memory store,
 * with a known admin key; or, when `GATEWAY_URL` and `GATEWAY_ADMIN_KEY` are set, that gateway, with
 * everything the test creates removed again on `close`.
 */
export const startTestGateway = async (options: LocalGatewayOptions = {}): Promise<TestGateway> => {
  if (remoteTarget) return connectRemoteGateway(remoteTarget, options);
  const adminKey = options.adminKey ?? generateApiKey().key;
  const gateway = await startLocalGateway({ port: 0, dataDir: 'memory', ...options, adminKey });
  return gatewayClient(gateway.url, adminKey, () => gateway.close());
};
