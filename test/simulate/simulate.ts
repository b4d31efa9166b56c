import { startFakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { driveChat, HOT_ACCOUNT, setUpHotAccount } from '../support/hot-account.js';
import { recordWrites } from '../support/store-recorder.js';
import { startTestGateway } from '../support/test-gateway.js';
import { summarize, printReport } from './write-report.js';

/**
 * `npm run simulate`: one hot account (rate limits and a quota sized for 10,000 requests per second)
 * driven through the local runtime, every store write counted per partition key on the store's wire,
 * then extrapolated to 10,000 requests per second. These machines cannot make
 * AWS-scale load; what scales is the share of writes each partition key gets, which the run measures.
 * Exits non-zero when a partition key would pass its limit with less than the required margin.
 */
const REQUESTS = Number(process.env.SIMULATE_REQUESTS ?? 1000);
const CONCURRENCY = Number(process.env.SIMULATE_CONCURRENCY ?? 32);
process.env.GATEWAY_LOG_LEVEL ??= 'error';

const upstream = await startFakeUpstream();
const gateway = await startTestGateway();
try {
  const { key } = await setUpHotAccount(gateway, upstream.baseUrl);
  const recorder = recordWrites();
  const started = Date.now();
  const statuses = await driveChat(gateway, key, REQUESTS, CONCURRENCY);
  const seconds = (Date.now() - started) / 1000;
  // The bookkeeping of the last requests runs after their answers: wait until it is all written.
  const deadline = Date.now() + 30_000;
  while ((recorder.commands.get('PutItemCommand') ?? 0) < REQUESTS && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  recorder.stop();
  const report = summarize(recorder, REQUESTS, HOT_ACCOUNT.requestsPerSecond);
  printReport(report, { requests: REQUESTS, concurrency: CONCURRENCY, seconds, statuses });
  process.exitCode = report.passed ? 0 : 1;
} finally {
  await gateway.close();
  await upstream.close();
}
