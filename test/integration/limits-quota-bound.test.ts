import { readSpend } from '../../functions/shared/accounting/spend.js';
import fc from 'fast-check';
import { startFakeUpstream, type FakeUpstream, type WireRoute } from '../support/fake-upstream/fake-upstream.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { invocationEnd } from '../support/invocation-ends.js';
import { waitFor } from '../support/wait-for.js';

let upstream: FakeUpstream;
let gateway: TestGateway;

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * An upstream that charges the most it could for what it is sent: one prompt token per UTF-8 byte of
 * every message (plus OpenAI's framing of 3 tokens a message and 3 for the answer), and every output
 * token the request allows.
 */
const maximalUsage: WireRoute = ({ request, response }) => {
  const messages = request.body.messages as { content: string }[];
  const promptTokens = messages.reduce((sum, message) => sum + bytes(message.content) + 3, 0) + 3;
  const completionTokens = request.body.max_tokens as number;
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      id: 'chatcmpl-maximal',
      object: 'chat.completion',
      created: 1,
      model: request.body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: 'x'.repeat(10) }, finish_reason: 'length' }],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    }),
  );
};

beforeAll(async () => {
  upstream = await startFakeUpstream({ 'POST /v1/chat/completions': maximalUsage });
  gateway = await startTestGateway();
  await gateway.admin('PUT', '/admin/v1/channels/maximal', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['metered'],
  });
  // $1 a token either way, so that dollars read as tokens.
  await gateway.admin('PUT', '/admin/v1/models/metered', {
    pricing: { inputPerMTok: 1_000_000, outputPerMTok: 1_000_000 },
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

/** The account's spending as the gateway stores it (summed over its spend shards). */
const storedQuota = (accountId: string) => readSpend(accountId);

/** Texts whose tokens a bytes/4 estimate undercounts: CJK, emoji, random base64, control characters. */
const adversarialTexts = fc.sample(
  fc.oneof(
    fc.string({
      unit: fc.integer({ min: 0x4e00, max: 0x9fff }).map((code) => String.fromCodePoint(code)),
      minLength: 60,
      maxLength: 120,
    }),
    fc.string({
      unit: fc.integer({ min: 0x1f300, max: 0x1faff }).map((code) => String.fromCodePoint(code)),
      minLength: 40,
      maxLength: 90,
    }),
    fc.base64String({ minLength: 200, maxLength: 400 }),
    fc.string({ unit: 'binary', minLength: 100, maxLength: 200 }),
  ),
  { numRuns: 50, seed: 20_261_123 },
);

describe('quota under concurrency', () => {
  test('50 concurrent requests of adversarial text never spend past the limit, and leave nothing reserved', async () => {
    const limit = 3000;
    const { key, account } = await gateway.createAccountWithKey({ quota: { limit } });

    const results = await Promise.all(
      adversarialTexts.map((text) =>
        gateway.request('POST', '/v1/chat/completions', {
          key,
          body: { model: 'metered', max_tokens: 20, messages: [{ role: 'user', content: text }] },
        }),
      ),
    );

    const succeeded = results.filter((result) => result.status === 200);
    const refused = results.filter((result) => result.status === 429);
    expect(succeeded.length + refused.length).toBe(results.length);
    expect(succeeded.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const result of refused) expect(result.body.error.code).toBe('insufficient_quota');

    // An invocation ends once its record and its settlement are both stored: two writes, each batched
    // with others, so a record can be readable before its settlement is. Wait for every invocation.
    await Promise.all(results.map((result) => invocationEnd(result.headers.get('x-request-id')!)));
    let records: any[] = [];
    await waitFor(async () => {
      records = (await gateway.admin('GET', `/admin/v1/usage?accountId=${account.id}`)).body.data;
      return records.length >= results.length;
    }, 10_000);
    const spentByRecords = records.reduce((sum, record) => sum + record.cost, 0);
    const quota = await storedQuota(account.id);
    // The upstream charged the most it could, and still: spending ≤ limit + open reservations (none left).
    expect(quota.committed).toBeCloseTo(quota.used, 6);
    expect(quota.used).toBeLessThanOrEqual(limit);
    expect(quota.used).toBeCloseTo(spentByRecords, 6);
  });
});
