import OpenAI from 'openai';
import { startFakeUpstream, type FakeUpstream, type WireRoute } from './fake-upstream/fake-upstream.js';
import { openAiRoutes } from './fake-upstream/openai-wire.js';
import { addOfflineDemoChannel } from './offline-demo-channel.js';
import { startTestGateway, type TestGateway } from './test-gateway.js';

export interface OpenAiChannelSetup {
  readonly upstream: FakeUpstream;
  readonly gateway: TestGateway;
  /** The official SDK on the gateway, with a user key and its own retries off. */
  readonly client: OpenAI;
  readonly key: string;
  close(): Promise<void>;
}

/**
 * A fake OpenAI-compatible upstream speaking `routes` besides chat, a gateway with one `openai`
 * channel on it (`channel` adds the models and anything else) and `demo-1` on a demo channel, and an
 * account with a key.
 */
export const startOpenAiChannel = async (
  routes: Record<string, WireRoute>,
  channel: Record<string, unknown>,
): Promise<OpenAiChannelSetup> => {
  const upstream = await startFakeUpstream({ ...openAiRoutes, ...routes });
  const gateway = await startTestGateway();
  const created = await gateway.admin('PUT', '/admin/v1/channels/fake-openai', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    ...channel,
  });
  if (created.status !== 200) throw new Error(`channel setup failed: ${created.text}`);
  await addOfflineDemoChannel(gateway);
  const { key } = await gateway.createAccountWithKey();
  const client = new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
  return {
    upstream,
    gateway,
    client,
    key,
    close: async () => {
      await gateway.close();
      await upstream.close();
    },
  };
};
