/**
 * Where the integration suite runs: the local runtime in this process (default), or any gateway
 * already running at `GATEWAY_URL` with the admin key `GATEWAY_ADMIN_KEY` (`npm run test:stage`: a
 * separately started `npm start`, or a deployed stage).
 */
export interface RemoteTarget {
  readonly url: string;
  readonly adminKey: string;
}

const readRemoteTarget = (): RemoteTarget | undefined => {
  const url = process.env.GATEWAY_URL?.trim();
  const adminKey = process.env.GATEWAY_ADMIN_KEY?.trim();
  if (!url && !adminKey) return undefined;
  if (!url || !adminKey)
    throw new Error('Set both GATEWAY_URL and GATEWAY_ADMIN_KEY to run the suite against a running gateway.');
  return { url: url.replace(/\/+$/, ''), adminKey };
};

export const remoteTarget: RemoteTarget | undefined = readRemoteTarget();

/** Whether the suite talks to a gateway outside this process. */
export const runsRemotely = remoteTarget !== undefined;

/**
 * Cases that need the gateway in this process (its store, its environment, its start options) are
 * skipped against a remote gateway, and say why in their name.
 */
export const describeInProcess =
  (reason: string) =>
  (name: string, body: () => void): void =>
    runsRemotely ? describe.skip(`${name} [in-process only: ${reason}]`, body) : describe(name, body);

export const itInProcess =
  (reason: string) =>
  (name: string, body: jest.ProvidesCallback, timeout?: number): void =>
    runsRemotely ? it.skip(`${name} [in-process only: ${reason}]`, body, timeout) : it(name, body, timeout);

/** A suffix that makes names created on a shared gateway unique to this run. */
export const runId: string =
  process.env.GATEWAY_TEST_RUN_ID ?? `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
