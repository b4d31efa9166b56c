import OpenAI from 'openai';
import { startFakeUpstream, type FakeUpstream, type WireRoute } from './fake-upstream/fake-upstream.js';
import type { WireSpec } from './fake-upstream/fake-wires.js';
import { openAiRoutes } from './fake-upstream/openai-wire.js';
import { addOfflineDemoChannel } from './offline-demo-channel.js';
import { startTestGateway, type TestGateway } from './test-gateway.js';
import { startUpstream } from './upstream-target.js';

export interface OpenAiChannelSetup {
  readonly upstream: FakeUpstream;
  readonly gateway: TestGateway;
  /** The official SDK on the gateway, with a user key and its own retries off. */
  readonly client: OpenAI;
  readonly key: string;
  close(): Promise<void>;
}

/**
 * A fake OpenAI-compatible upstream speaking `wire` besides chat, a gateway with one `openai`
 * channel on it (`channel` adds the models and anything else) and `demo-1` on a demo channel, and an
 * account with a key. A named wire runs wherever the suite's fakes run; routes of a test's own making
 * need the fake in this process.
 */
export const startOpenAiChannel = async (
  wire: WireSpec | Record<string, WireRoute>,
  channel: Record<string, unknown>,
): Promise<OpenAiChannelSetup> => {
  const upstream =
    typeof wire.wire === 'string'
      ? await startUpstream({ wire: 'openai' }, wire as WireSpec)
      : await startFakeUpstream({ ...openAiRoutes, ...(wire as Record<string, WireRoute>) });
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
