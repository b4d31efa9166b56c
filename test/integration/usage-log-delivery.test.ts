import { DeleteCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import {
  storeUsageRecord,
  usageItem,
  usageRecordLine,
  usageSources,
  usageStatuses,
  type UsageRecord,
} from '../../functions/shared/accounting/usage-records.js';
import { USAGE_DELIVERY_VARIABLE } from '../../functions/shared/accounting/usage-delivery.js';
import { endpointKinds } from '../../functions/shared/store/channels.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { handler as usageWriter } from '../../functions/usage-writer/handler.js';
import { captureLogLines, type LogLine } from '../support/captured-log-lines.js';
import { cloudWatchLogsEvent } from '../support/cloudwatch-logs-event.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { openAiRoutes } from '../support/fake-upstream/openai-wire.js';
import { invocationEnd } from '../support/invocation-ends.js';
import { store } from '../support/sdk-store.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { usageRecordWith } from '../support/usage-record.js';

/**
 * Usage records delivered through the log (usage-delivery.ts), as a stack deploys the relaying
 * functions: a request writes its record as a log line and makes no store call for it; the usage
 * writer, given the lines as a log subscription delivers them, stores exactly the item the function
 * would have put itself. Read once per process, the delivery is set before the first request.
 */
process.env[USAGE_DELIVERY_VARIABLE] = 'log';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream(openAiRoutes);
  gateway = await startTestGateway();
  const created = await gateway.admin('PUT', '/admin/v1/channels/log-delivery-openai', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['log-delivery-gpt'],
  });
  expect(created.status).toBe(200);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  delete process.env[USAGE_DELIVERY_VARIABLE];
});

const isUsageLine = (line: LogLine) => line.event === 'usage_record';

const storedItem = async (record: UsageRecord) => {
  const { partition, sk } = usageItem(record);
  const { Item } = await store().send(
    new GetCommand({ TableName: physicalTableName('usage'), Key: { partition, sk } }),
  );
  return Item;
};

const deleteItem = async (record: UsageRecord) => {
  const { partition, sk } = usageItem(record);
  await store().send(new DeleteCommand({ TableName: physicalTableName('usage'), Key: { partition, sk } }));
};

const usageOf = async (accountId: string) =>
  (await gateway.admin('GET', `/admin/v1/usage?accountId=${accountId}`)).body.data as Record<string, unknown>[];

test('a request writes its record as a log line, at any log level, and the writer stores it', async () => {
  const caller = await gateway.createAccountWithKey();
  // `silent` writes no line but those that carry data.
  const log = captureLogLines('silent');
  const requestIds: string[] = [];
  try {
    for (const stream of [false, true]) {
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'log-delivery-gpt', stream, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status).toBe(200);
      await response.text();
      const requestId = response.headers.get('x-request-id')!;
      await invocationEnd(requestId);
      requestIds.push(requestId);
    }
  } finally {
    log.restore();
  }

  expect(log.lines.every(isUsageLine)).toBe(true);
  const usageLines = log.lines.filter((line) => requestIds.includes((line.usage as { requestId: string }).requestId));
  expect(usageLines).toHaveLength(2);
  expect(await usageOf(caller.account.id)).toEqual([]);

  await usageWriter(cloudWatchLogsEvent(usageLines.map((line) => JSON.stringify(line))));

  const records = await usageOf(caller.account.id);
  expect(records.map((record) => record.requestId).sort()).toEqual([...requestIds].sort());
  for (const record of records) {
    expect(record).toMatchObject({ keyId: caller.keyId, model: 'log-delivery-gpt', status: 'success' });
    expect(record.totalTokens).toBeGreaterThan(0);
  }
});

/** A figure DynamoDB can hold: zero, or a magnitude from 1e-130 (1e-9 here) up. */
const figure = (max: number) => fc.oneof(fc.constant(0), fc.double({ min: 1e-9, max, noNaN: true }));

const recordArbitrary: fc.Arbitrary<UsageRecord> = fc.record({
  requestId: fc.uuid(),
  time: fc
    .date({ min: new Date('2020-01-01Z'), max: new Date('2035-01-01Z'), noInvalidDate: true })
    .map((date) => date.toISOString()),
  accountId: fc.string({ minLength: 1, maxLength: 20 }),
  keyId: fc.string({ minLength: 1, maxLength: 20 }),
  model: fc.string({ minLength: 1, maxLength: 30 }),
  channelId: fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: null }),
  endpoint: fc.constantFrom(...endpointKinds),
  stream: fc.boolean(),
  status: fc.constantFrom(...usageStatuses),
  httpStatus: fc.integer({ min: 200, max: 599 }),
  attempts: fc.integer({ min: 1, max: 5 }),
  promptTokens: fc.nat(),
  completionTokens: fc.nat(),
  totalTokens: fc.nat(),
  cachedTokens: fc.nat(),
  cacheWriteTokens: fc.option(fc.nat(), { nil: undefined }),
  reasoningTokens: fc.nat(),
  usageSource: fc.constantFrom(...usageSources),
  cost: figure(1_000),
  latencyMs: figure(900_000),
  overheadMs: fc.option(figure(1_000), { nil: undefined }),
}) as fc.Arbitrary<UsageRecord>;

test('the writer stores from a line exactly the item the function would have put itself', async () => {
  await fc.assert(
    fc.asyncProperty(recordArbitrary, async (record) => {
      await storeUsageRecord(record);
      const put = await storedItem(record);
      expect(put).toBeDefined();
      await deleteItem(record);

      await usageWriter(cloudWatchLogsEvent([usageRecordLine(record)]));

      expect(await storedItem(record)).toEqual(put);
    }),
    { numRuns: 30 },
  );
});

test('a model id that looks like a credential is scanned out of the line, as in every log line', () => {
  const secret = `sk-proj-${'a1B2c3D4'.repeat(6)}`;
  const line = usageRecordLine(
    usageRecordWith({ requestId: 'req-secret-model', accountId: 'acct_log', model: secret }),
  );

  expect(line).not.toContain(secret);
  expect(JSON.parse(line)).toMatchObject({ event: 'usage_record', usage: { requestId: 'req-secret-model' } });
});

test('an event that does not decode fails the invocation, so that the dead-letter queue keeps it', async () => {
  await expect(usageWriter({ awslogs: { data: Buffer.from('not gzip').toString('base64') } })).rejects.toThrow();
});

test("the subscription's control message stores nothing", async () => {
  await expect(usageWriter(cloudWatchLogsEvent([], 'CONTROL_MESSAGE'))).resolves.toBeUndefined();
});

test('a line that is not a whole usage record is reported and the others are still stored', async () => {
  const record = usageRecordWith({ requestId: 'req-beside-unreadable', accountId: 'acct_log_unreadable' });
  // JSON has no NaN: the figure reaches the writer as null, which no record holds.
  const withoutCost = usageRecordLine({ ...record, requestId: 'req-nan-cost', cost: Number.NaN });
  const log = captureLogLines('error');
  try {
    await usageWriter(
      cloudWatchLogsEvent([
        'not json',
        '{"event":"usage_record","usage":"text"}',
        withoutCost,
        usageRecordLine(record),
      ]),
    );
  } finally {
    log.restore();
  }

  expect(log.lines).toEqual([expect.objectContaining({ message: 'usage lines not read', count: 3 })]);
  expect(await storedItem(record)).toMatchObject({ requestId: 'req-beside-unreadable' });
});

test('a record the store refuses fails the invocation, so that Lambda retries it', async () => {
  // Over DynamoDB's 400 KB item limit: the store refuses the write, not the writer.
  const refused = usageRecordWith({
    requestId: 'req-refused',
    accountId: 'acct_log_refused',
    model: 'm'.repeat(410_000),
  });
  const log = captureLogLines('error');
  try {
    await expect(usageWriter(cloudWatchLogsEvent([usageRecordLine(refused)]))).rejects.toThrow(
      '1 of 1 usage records not stored',
    );
  } finally {
    log.restore();
  }
  expect(log.lines).toEqual([expect.objectContaining({ message: 'usage records not stored', count: 1, of: 1 })]);
});
