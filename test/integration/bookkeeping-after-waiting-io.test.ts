import { admit } from '../../functions/shared/accounting/admission.js';
import { writeUsageRecord } from '../../functions/shared/accounting/usage-records.js';
import type { Principal } from '../../functions/shared/auth/principal.js';
import { observeAwsCalls } from '../../functions/shared/aws/aws-call-observer.js';
import { describeInProcess } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { usageRecordWith } from '../support/usage-record.js';

/**
 * One process serves many requests at once (the local runtime, multi-concurrency Lambda). The writes
 * after a response must not run their SDK work ahead of I/O that is already waiting (the next
 * request's bytes): each kind of bookkeeping first lets the loop serve it, then calls the store.
 */

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  observeAwsCalls(undefined);
  await gateway?.close();
});

/** Runs `work` while an I/O callback is already queued; returns the order in which things happened. */
const orderAround = async (work: () => Promise<unknown>): Promise<string[]> => {
  const order: string[] = [];
  observeAwsCalls((call) => order.push(`store ${call.operation}`));
  try {
    setImmediate(() => order.push('waiting I/O'));
    const running = work();
    order.push('returned');
    await running;
  } finally {
    observeAwsCalls(undefined);
  }
  return order;
};

const principal: Principal = {
  keyId: 'key_waiting_io',
  keyPrefix: 'sk-waiting',
  accountId: 'acct_waiting_io',
  role: 'user',
  expiresAt: null,
  accountModels: null,
  keyModels: null,
  keyRateLimit: { rpm: 100, tpm: 100_000 },
  accountRateLimit: null,
  quotaLimit: 100,
};

const record = usageRecordWith({
  requestId: 'waiting-io-request',
  accountId: principal.accountId,
  keyId: principal.keyId,
});

describeInProcess('watches the store calls of this process')('bookkeeping after a response', () => {
  test('a usage record reaches the store only after the I/O already waiting was served', async () => {
    expect(await orderAround(() => writeUsageRecord(record))).toEqual(['returned', 'waiting I/O', 'store PutItem']);
  });

  test('a settlement corrects its windows and quota only after the I/O already waiting was served', async () => {
    const admission = await admit(principal, {
      model: { id: 'demo-1', pricing: { inputPerMTok: 1, outputPerMTok: 1 } },
      promptTokens: 10,
      maxOutputTokens: 10,
    });
    const order = await orderAround(() => admission.settle({ promptTokens: 5, completionTokens: 5 }));
    expect(order.slice(0, 2)).toEqual(['returned', 'waiting I/O']);
    expect(order.slice(2).sort()).toEqual(['store UpdateItem', 'store UpdateItem']);
  });
});
