import OpenAI from 'openai';
import { handlerInitializations } from '../../infra/local/handlers.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { describeInProcess } from '../support/gateway-target.js';
import { waitFor } from '../support/wait-for.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * One Lambda instance initialises its module once and then serves invocation after invocation, and
 * one process (the local runtime, or a multi-concurrency deployment) may run several at once: no
 * request may leave state in the module for another to find.
 */
let upstream: FakeUpstream;
let gateway: TestGateway;

const describe = describeInProcess("counts module initialisations in its own gateway's process");

describe('handlers reused across invocations', () => {
  beforeAll(async () => {
    upstream = await startFakeUpstream();
    gateway = await startTestGateway();
    const channel = await gateway.admin('PUT', '/admin/v1/channels/reuse-openai', {
      type: 'openai',
      baseUrl: upstream.baseUrl,
      models: ['gpt-reuse'],
    });
    expect(channel.status).toBe(200);
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  /** The account's usage records, once its one request has been recorded. */
  const usageOf = async (accountId: string) => {
    const records = async () => (await gateway.admin('GET', `/admin/v1/usage?accountId=${accountId}`)).body.data;
    await waitFor(async () => (await records()).length > 0);
    return records();
  };

  it('keep two interleaved streams of different callers apart: answers, usage records and accounts', async () => {
    const first = await gateway.createAccountWithKey();
    const second = await gateway.createAccountWithKey();
    const client = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    // The first stream is slow: the second starts once the first is under way, and ends before it.
    upstream.inject({ kind: 'slow-stream', gapMs: 150 });
    const firstStream = await client(first.key).chat.completions.create({
      model: 'gpt-reuse',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'first caller with a fairly long question' }],
    });
    const firstChunks = firstStream[Symbol.asyncIterator]();
    let firstText = '';
    const opening = await firstChunks.next();
    firstText += opening.value?.choices[0]?.delta.content ?? '';

    let secondText = '';
    for await (const chunk of await client(second.key).chat.completions.create({
      model: 'gpt-reuse',
      stream: true,
      messages: [{ role: 'user', content: 'second caller' }],
    })) {
      secondText += chunk.choices[0]?.delta.content ?? '';
    }
    for (let next = await firstChunks.next(); !next.done; next = await firstChunks.next())
      firstText += next.value.choices[0]?.delta.content ?? '';

    expect(secondText).toBe('Echo: second caller');
    expect(firstText).toBe('Echo: first caller with a fairly long question');
    const [firstRecords, secondRecords] = await Promise.all([usageOf(first.account.id), usageOf(second.account.id)]);
    expect(firstRecords).toHaveLength(1);
    expect(secondRecords).toHaveLength(1);
    expect(firstRecords[0]).toMatchObject({ keyId: first.keyId, status: 'success', stream: true });
    expect(secondRecords[0]).toMatchObject({ keyId: second.keyId, status: 'success', stream: true });
    expect(firstRecords[0].requestId).not.toBe(secondRecords[0].requestId);
  });

  it('initialise each group once, however many invocations follow', async () => {
    const { key } = await gateway.createAccountWithKey();
    const before = handlerInitializations('models');

    const answers = await Promise.all(Array.from({ length: 5 }, () => gateway.request('GET', '/v1/models', { key })));

    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    expect(handlerInitializations('models')).toBe(1);
    expect(before).toBeLessThanOrEqual(1);
    expect(handlerInitializations('chat')).toBe(1);
  });
});
