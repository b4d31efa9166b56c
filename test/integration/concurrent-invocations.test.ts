import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { openAiRoutes } from '../support/fake-upstream/openai-wire.js';
import { invocationEnd } from '../support/invocation-ends.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * On multi-concurrency compute one process serves many invocations of the same handler module at
 * once, as the local runtime does. Whatever a request leaves at module level would reach another's
 * answer or usage record; here many interleaved requests, each with its own account, key and prompt,
 * must each get exactly their own.
 */
let upstream: FakeUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFakeUpstream(openAiRoutes);
  gateway = await startTestGateway();
  const created = await gateway.admin('PUT', '/admin/v1/channels/concurrent-openai', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['concurrent-gpt'],
  });
  expect(created.status).toBe(200);
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

const readStream = async (response: Response): Promise<string> => {
  let text = '';
  for (const event of (await response.text()).split('\n\n')) {
    if (!event.startsWith('data: ') || event === 'data: [DONE]') continue;
    text +=
      (JSON.parse(event.slice(6)) as { choices: { delta: { content?: string } }[] }).choices[0]?.delta.content ?? '';
  }
  return text;
};

test('many concurrent invocations of one handler module each answer and meter only their own request', async () => {
  const callers = await Promise.all(Array.from({ length: 12 }, () => gateway.createAccountWithKey()));
  // The first requests to reach the upstream answer slowly (a plain call ignores it), so that the
  // streams and plain calls of different keys interleave.
  upstream.inject(...Array.from({ length: 8 }, () => ({ kind: 'slow-stream' as const, gapMs: 2 })));
  const calls = callers.flatMap((caller, index) =>
    (['plain', 'stream'] as const).map(async (kind) => {
      const prompt = `caller ${index} ${kind}`;
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'concurrent-gpt',
          stream: kind === 'stream',
          messages: [{ role: 'user', content: prompt }],
        }),
      });
      expect(response.status).toBe(200);
      const text =
        kind === 'stream'
          ? await readStream(response)
          : ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
      const requestId = response.headers.get('x-request-id')!;
      await invocationEnd(requestId);
      return { caller, prompt, text, requestId, stream: kind === 'stream' };
    }),
  );
  const results = await Promise.all(calls);

  for (const result of results) expect(result.text).toBe(`Echo: ${result.prompt}`);
  expect(new Set(results.map((result) => result.requestId)).size).toBe(results.length);
  for (const caller of callers) {
    const usage = await gateway.admin('GET', `/admin/v1/usage?accountId=${caller.account.id}`);
    const own = results.filter((result) => result.caller === caller);
    const records = (usage.body.data as { requestId: string; keyId: string; stream: boolean }[])
      .map(({ requestId, keyId, stream }) => ({ requestId, keyId, stream }))
      .sort((left, right) => left.requestId.localeCompare(right.requestId));
    expect(records).toEqual(
      own
        .map((result) => ({ requestId: result.requestId, keyId: caller.keyId, stream: result.stream }))
        .sort((left, right) => left.requestId.localeCompare(right.requestId)),
    );
  }
});
