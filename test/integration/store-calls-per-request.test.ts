import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { observeAwsCalls } from '../../functions/shared/aws/aws-call-observer.js';
import { newKeyRecord } from '../../functions/shared/config/resource-records.js';
import { putKey } from '../../functions/shared/store/keys.js';
import { physicalTableName, tableNames } from '../../functions/shared/store/tables.js';
import { currentFunctionGroup } from '../../infra/local/function-scope.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { openAiResponsesRoutes } from '../support/fake-upstream/openai-responses-wire.js';
import { openAiRoutes } from '../support/fake-upstream/openai-wire.js';
import { describeInProcess } from '../support/gateway-target.js';
import { invocationEnd } from '../support/invocation-ends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * Every store call is paid for twice: in DynamoDB request units and in the function's CPU (signing,
 * serialising, parsing). This suite fixes how many calls one chat request makes, and which, for each
 * kind of key, once its key and the catalogue are cached: a new call on the hot path fails it, so
 * that adding one is a decision made here, not an accident.
 */

const MODEL = 'metered-model';

let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  // Deployed functions cache keys and configuration; so does the local runtime by default.
  process.env.GATEWAY_CACHE_TTL_MS = '30000';
  upstream = await startFakeUpstream({ ...openAiRoutes, ...openAiResponsesRoutes });
  gateway = await startTestGateway();
  await gateway.admin('PUT', '/admin/v1/channels/metered-upstream', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: [MODEL],
  });
  // Priced, so that every request has a cost to settle.
  await gateway.admin('PUT', `/admin/v1/models/${MODEL}`, { pricing: { inputPerMTok: 1, outputPerMTok: 2 } });
});

afterAll(async () => {
  observeAwsCalls(undefined);
  await gateway?.close();
  await upstream?.close();
});

const logicalTable = (physical: unknown) => tableNames.find((table) => physicalTableName(table) === physical) ?? '?';

/** One call as counted here: before or after the upstream was called, the operation and its table. */
const describeCall = (operation: string, input: Readonly<Record<string, unknown>>, upstreamCalled: boolean) => {
  const tables =
    typeof input.TableName === 'string'
      ? logicalTable(input.TableName)
      : Object.keys((input.RequestItems ?? {}) as object)
          .map(logicalTable)
          .join('+');
  const conditional = 'ConditionExpression' in input ? ' (conditional)' : '';
  return `${upstreamCalled ? 'after' : 'before'}: ${operation} ${tables}${conditional}`;
};

/** The store calls of one request's invocation, the writes after the answer included; resolves with its body too. */
const callsDuring = async (
  send: () => Promise<{ status: number; headers: Headers; body: any }>,
): Promise<{ calls: string[]; body: any }> => {
  const calls: string[] = [];
  const upstreamBefore = upstream.received.length;
  observeAwsCalls((call) => {
    if (!currentFunctionGroup() || call.client !== 'DynamoDBClient') return;
    calls.push(describeCall(call.operation, call.input, upstream.received.length > upstreamBefore));
  });
  try {
    const answer = await send();
    expect(answer.status).toBe(200);
    await invocationEnd(answer.headers.get('x-request-id')!);
    return { calls: calls.sort(), body: answer.body };
  } finally {
    observeAwsCalls(undefined);
  }
};

/** Sends one chat request and returns the store calls its invocation made, the writes after the answer included. */
const storeCallsOf = async (key: string, stream: boolean): Promise<string[]> => {
  const calls: string[] = [];
  const upstreamBefore = upstream.received.length;
  observeAwsCalls((call) => {
    if (!currentFunctionGroup() || call.client !== 'DynamoDBClient') return;
    calls.push(describeCall(call.operation, call.input, upstream.received.length > upstreamBefore));
  });
  try {
    const answer = await gateway.request('POST', '/v1/chat/completions', {
      key,
      body: { model: MODEL, stream, max_tokens: 32, messages: [{ role: 'user', content: 'count my store calls' }] },
    });
    expect(answer.status).toBe(200);
    await invocationEnd(answer.headers.get('x-request-id')!);
  } finally {
    observeAwsCalls(undefined);
  }
  return calls.sort();
};

/** The calls of a request with a warm cache: a first request loads the key and the catalogue. */
const warmStoreCallsOf = async (key: string, stream: boolean) => {
  await storeCallsOf(key, stream);
  return storeCallsOf(key, stream);
};

const limits = { rpm: 1_000, tpm: 1_000_000 };

describeInProcess('counts the AWS calls of the functions in this process')('store calls per request', () => {
  describe.each([false, true])('streamed: %s', (stream) => {
    test('a key without limits, on an account without quota, writes only its usage record', async () => {
      const { key } = await gateway.createAccountWithKey();
      expect(await warmStoreCallsOf(key, stream)).toEqual(['after: PutItem usage']);
    });

    test("a key's first request in a minute also records when the key was used, after the response; the next does not", async () => {
      const { key } = await gateway.createAccountWithKey();
      const keyCalls = (calls: string[]) => calls.filter((call) => call.includes(' keys'));
      // The first request also reads the key (then cached).
      expect(keyCalls(await storeCallsOf(key, stream))).toEqual([
        'after: UpdateItem keys (conditional)',
        'before: GetItem keys',
      ]);
      expect(keyCalls(await storeCallsOf(key, stream))).toEqual([]);
    });

    test('a key with a rate limit charges its windows before the upstream and corrects the token window after', async () => {
      const { key } = await gateway.createAccountWithKey({}, { rateLimit: limits });
      expect(await warmStoreCallsOf(key, stream)).toEqual([
        'after: PutItem usage',
        'after: UpdateItem counters',
        'before: UpdateItem counters (conditional)',
        'before: UpdateItem counters (conditional)',
      ]);
    });

    test('an account with a quota reserves before the upstream and settles after', async () => {
      const { key } = await gateway.createAccountWithKey({ quota: { limit: 1_000 } });
      expect(await warmStoreCallsOf(key, stream)).toEqual([
        'after: PutItem usage',
        'after: UpdateItem spend',
        'before: UpdateItem spend (conditional)',
      ]);
    });

    test('a key with a budget, made by a member with a budget, on an account with a budget reserves on each before the upstream and settles each after', async () => {
      const budget = { limitUsd: 1_000, period: 'month' as const };
      const { account } = await gateway.createAccountWithKey({ budget });
      const member = `store-calls-${stream}@example.com`;
      await gateway.admin('PUT', `/admin/v1/members/${member}`, { accountId: account.id, role: 'member', budget });
      const issued = generateApiKey();
      await putKey({ ...newKeyRecord(issued.key, account.id, { budget: { ...budget, alertAt: [] } }), owner: member });
      // The budgets' settings come with the key's principal (one read of account and member, cached):
      // per request, one conditional reservation and one settlement per budget, all in parallel.
      expect(await warmStoreCallsOf(issued.key, stream)).toEqual([
        'after: PutItem usage',
        'after: UpdateItem spend',
        'after: UpdateItem spend',
        'after: UpdateItem spend',
        'before: UpdateItem spend (conditional)',
        'before: UpdateItem spend (conditional)',
        'before: UpdateItem spend (conditional)',
      ]);
    });

    test('a limited key on a limited account with a quota charges every window and the quota before the upstream, and corrects, settles and records after', async () => {
      const { key } = await gateway.createAccountWithKey(
        { quota: { limit: 1_000 }, rateLimit: limits },
        { rateLimit: limits },
      );
      expect(await warmStoreCallsOf(key, stream)).toEqual([
        'after: PutItem usage',
        'after: UpdateItem counters',
        'after: UpdateItem counters',
        'after: UpdateItem spend',
        'before: UpdateItem counters (conditional)',
        'before: UpdateItem counters (conditional)',
        'before: UpdateItem counters (conditional)',
        'before: UpdateItem counters (conditional)',
        'before: UpdateItem spend (conditional)',
      ]);
    });
  });

  describe('a Responses turn (whole; a stream keeps its response the same way)', () => {
    const respond = (key: string, body: object) => () =>
      gateway.request('POST', '/v1/responses', { key, body: { model: MODEL, max_output_tokens: 32, ...body } });

    test('kept: one PutItem of the response once the upstream has answered, beside the usage record', async () => {
      const { key } = await gateway.createAccountWithKey();
      await callsDuring(respond(key, { input: 'warm up' }));
      const { calls } = await callsDuring(respond(key, { input: 'keep me' }));
      expect(calls).toEqual(['after: PutItem responses', 'after: PutItem usage']);
    });

    test('chained: one Query for the stored conversation before the upstream, then the same writes', async () => {
      const { key } = await gateway.createAccountWithKey();
      const { body: first } = await callsDuring(respond(key, { input: 'first' }));
      const { calls } = await callsDuring(respond(key, { input: 'second', previous_response_id: first.id }));
      expect(calls).toEqual(['after: PutItem responses', 'after: PutItem usage', 'before: Query responses']);
    });

    test('store: false: nothing but the usage record', async () => {
      const { key } = await gateway.createAccountWithKey();
      await callsDuring(respond(key, { input: 'warm up', store: false }));
      const { calls } = await callsDuring(respond(key, { input: 'forget me', store: false }));
      expect(calls).toEqual(['after: PutItem usage']);
    });
  });
});
