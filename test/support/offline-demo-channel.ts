import type { TestGateway } from './test-gateway.js';

/**
 * A `demo`-type channel of its own, serving `demo-1` beside the channels a suite configures: the
 * built-in `demo` channel stops serving once another channel exists, and these suites use `demo-1`
 * as a model that answers without any upstream.
 */
export const addOfflineDemoChannel = async (gateway: TestGateway): Promise<void> => {
  const put = await gateway.admin('PUT', '/admin/v1/channels/offline-demo', { type: 'demo', models: ['demo-1'] });
  if (put.status !== 200) throw new Error(`demo channel setup failed: ${put.text}`);
};
