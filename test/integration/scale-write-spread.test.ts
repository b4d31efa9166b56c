import { lambdaRuntimeEvents } from '../../infra/local/function-timeout.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { driveChat, setUpHotAccount } from '../support/hot-account.js';
import { recordWrites } from '../support/store-recorder.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const REQUESTS = 80;

/** Waits until `condition` holds: the deferred bookkeeping of the last requests follows their answers. */
describe('hot writes of one busy account', () => {
  test('no partition key receives more than a tenth of the writes of a run of requests', async () => {
    const { key } = await setUpHotAccount(gateway, upstream.baseUrl);
    const recorder = recordWrites();
    let ended = 0;
    const countEnd = () => {
      ended += 1;
    };
    lambdaRuntimeEvents.on('invocation-end', countEnd);
    try {
      // Unsharded, the account's spend item alone would take 2 of the ~11 writes of each request.
      const statuses = await driveChat(gateway, key, REQUESTS, 8);
      // Nothing refused by a limit or failed by the gateway (the limits are sized for 10,000 requests/s).
      expect(statuses.get(200)).toBeGreaterThanOrEqual(REQUESTS - 2);
      expect([...statuses.keys()].filter((status) => status !== 200 && status !== 502)).toEqual([]);
      // The bookkeeping after an answer ends before its invocation does.
      await waitFor(() => ended >= REQUESTS, 15_000);

      const total = recorder.totalWrites();
      // Every kind of bookkeeping was written: request and token windows, spend, usage and both indexes.
      for (const prefix of [
        'counters:rpm#key',
        'counters:rpm#account',
        'counters:tpm#key',
        'counters:tpm#account',
        'spend:',
        'usage:',
        'usage.byKey:',
        'usage.byDay:',
      ]) {
        expect([...recorder.writes.keys()].filter((partition) => partition.startsWith(prefix)).length).toBeGreaterThan(
          1,
        );
      }
      // The key's and the member's monthly budgets are sharded like the account's spend.
      for (const level of ['|key|', '|member|']) {
        expect([...recorder.writes.keys()].filter((partition) => partition.includes(level)).length).toBeGreaterThan(1);
      }
      const [hottest, writes] = [...recorder.writes.entries()].sort((a, b) => b[1] - a[1])[0]!;
      expect({ hottest, writes, total, share: writes / total <= 0.1 }).toEqual({ hottest, writes, total, share: true });
    } finally {
      lambdaRuntimeEvents.off('invocation-end', countEnd);
      recorder.stop();
    }
  }, 120_000);
});
