import { encodeFault } from './fault-codec.js';
import type { FakeUpstream, ReceivedRequest } from './fake-upstream.js';
import type { WireSpec } from './fake-wires.js';

/** Where a shared fake upstream runs (its own process, the fixtures stack's function URL) and its control token. */
export interface RemoteFakeTarget {
  readonly url: string;
  readonly token: string;
}

/**
 * A session on a fake upstream that runs elsewhere, as a test's fake. What it received and the
 * disconnects it saw are read with `receivedRequests()` and `abortedCount()`; `received` and
 * `abortedByClient` are in-process reads and throw here, so that a stale read cannot pass for one.
 */
export const openRemoteFakeUpstream = async (
  target: RemoteFakeTarget,
  wires: readonly WireSpec[],
): Promise<FakeUpstream> => {
  const control = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${target.url}/control/sessions${path}`, {
      method,
      headers: {
        authorization: `Bearer ${target.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`fake upstream control ${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  const { id } = (await control('POST', '', { wires })) as { id: string };
  const origin = `${target.url}/sessions/${id}/fake`;
  const inProcessOnly = (name: string, remoteRead: string): never => {
    throw new Error(`${name} is read in place from a fake in this process: await ${remoteRead}() reads a remote one.`);
  };
  return {
    baseUrl: `${origin}/v1`,
    origin,
    get received(): ReceivedRequest[] {
      return inProcessOnly('received', 'receivedRequests');
    },
    receivedRequests: async () =>
      ((await control('GET', `/${id}/received`)) as { requests: ReceivedRequest[] }).requests,
    inject: async (...faults) => {
      await control('POST', `/${id}/faults`, { faults: faults.map(encodeFault) });
    },
    clearFaults: async () => {
      await control('DELETE', `/${id}/faults`);
    },
    get abortedByClient(): number {
      return inProcessOnly('abortedByClient', 'abortedCount');
    },
    abortedCount: async () => ((await control('GET', `/${id}/aborted`)) as { count: number }).count,
    get connectionsAccepted(): number {
      throw new Error('connectionsAccepted counts the sockets of a fake in this process only.');
    },
    close: async () => {
      await control('DELETE', `/${id}`);
    },
  };
};
