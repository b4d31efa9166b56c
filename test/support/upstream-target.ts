import { startFakeUpstream, type FakeUpstream } from './fake-upstream/fake-upstream.js';
import { routesOfWires, type WireSpec } from './fake-upstream/fake-wires.js';
import { openRemoteFakeUpstream, type RemoteFakeTarget } from './fake-upstream/remote-fake-upstream.js';

/**
 * Where the suite's fake upstreams run: in this process (default), or on a shared fake at
 * `GATEWAY_FAKE_UPSTREAM_URL` with the control token `GATEWAY_FAKE_UPSTREAM_TOKEN` (its own process,
 * or the fixtures stack beside a deployed stage, which Lambda can reach and this process cannot).
 */
const readRemoteFake = (): RemoteFakeTarget | undefined => {
  const url = process.env.GATEWAY_FAKE_UPSTREAM_URL?.trim();
  const token = process.env.GATEWAY_FAKE_UPSTREAM_TOKEN?.trim();
  if (!url && !token) return undefined;
  if (!url || !token)
    throw new Error(
      'Set both GATEWAY_FAKE_UPSTREAM_URL and GATEWAY_FAKE_UPSTREAM_TOKEN to use a shared fake upstream.',
    );
  return { url: url.replace(/\/+$/, ''), token };
};

export const remoteFake: RemoteFakeTarget | undefined = readRemoteFake();

/** Whether the suite's fakes run outside this process. */
export const fakeRunsRemotely = remoteFake !== undefined;

/** A fake upstream speaking `wires`, wherever the suite's fakes run. */
export const startUpstream = (...wires: WireSpec[]): Promise<FakeUpstream> =>
  remoteFake ? openRemoteFakeUpstream(remoteFake, wires) : startFakeUpstream(routesOfWires(wires));
