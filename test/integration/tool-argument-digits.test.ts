import { setFakeAwsCredentials } from '../support/fake-aws-credentials.js';
import { describeInProcess } from '../support/gateway-target.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * A tool call's arguments are JSON text a model wrote. Where the gateway turns them into another
 * protocol's object (Anthropic's `input`, Gemini's `args`, Converse's `input`), in either direction,
 * each number keeps the digits it was written with, including those a double cannot hold.
 */
const run = describeInProcess('reads what a scripted upstream received');

/** Numbers a double rounds (or overflows), beside ones it holds. */
const ARGUMENTS =
  '{"id":12345678901234567890,"ratio":0.10000000000000000001,"small":1.5,"list":[9007199254740993,-2],"far":1e400}';

const openAiToolCall = {
  id: 'chatcmpl-digits',
  object: 'chat.completion',
  created: 1,
  model: 'upstream-model',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: ARGUMENTS } }],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
};

const answers: Record<string, string> = {
  openai: JSON.stringify(openAiToolCall),
  anthropic: JSON.stringify({
    id: 'msg_digits',
    type: 'message',
    role: 'assistant',
    model: 'upstream-model',
    content: [{ type: 'text', text: 'done' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 3, output_tokens: 1 },
  }),
  gemini: JSON.stringify({
    candidates: [{ content: { role: 'model', parts: [{ text: 'done' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 },
  }),
  bedrock: JSON.stringify({
    output: { message: { role: 'assistant', content: [{ text: 'done' }] } },
    stopReason: 'end_turn',
    usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 },
    metrics: { latencyMs: 1 },
  }),
};

run('tool call arguments keep their digits across protocols', () => {
  let gateway: TestGateway;
  const upstreams: Record<string, ScriptedUpstream> = {};
  let key: string;
  let restoreAwsEnvironment: () => void = () => undefined;

  beforeAll(async () => {
    restoreAwsEnvironment = setFakeAwsCredentials('AKIDTOOLDIGITS');
    gateway = await startTestGateway();
    for (const type of Object.keys(answers)) {
      upstreams[type] = await startScriptedUpstream(() => answers[type]!);
      const created = await gateway.admin('PUT', `/admin/v1/channels/digits-${type}`, {
        type,
        baseUrl: upstreams[type]!.origin,
        apiKey: type === 'bedrock' ? undefined : 'sk-upstream-digits',
        models: [`digits-on-${type}`],
        modelMap: { [`digits-on-${type}`]: type === 'bedrock' ? 'anthropic.digits-v1:0' : 'upstream-model' },
      });
      expect(created.status).toBe(200);
    }
    ({ key } = await gateway.createAccountWithKey());
  });

  afterAll(async () => {
    await gateway?.close();
    for (const upstream of Object.values(upstreams)) await upstream.close();
    restoreAwsEnvironment();
  });

  it.each(['anthropic', 'gemini', 'bedrock'])(
    "sends a %s upstream the arguments of an earlier tool call with the model's digits",
    async (type) => {
      const upstream = upstreams[type]!;
      const sentBefore = upstream.bodies.length;
      const response = await gateway.request('POST', '/v1/chat/completions', {
        key,
        body: {
          model: `digits-on-${type}`,
          messages: [
            { role: 'user', content: 'look' },
            openAiToolCall.choices[0]!.message,
            { role: 'tool', tool_call_id: 'call_1', content: 'seen' },
          ],
          tools: [{ type: 'function', function: { name: 'look', parameters: { type: 'object' } } }],
        },
      });
      expect(response.status).toBe(200);
      const sent = upstream.bodies.slice(sentBefore).join('\n');
      expect(sent).toContain(type === 'gemini' ? `"args":${ARGUMENTS}` : `"input":${ARGUMENTS}`);
    },
  );

  it('answers an Anthropic client with the tool input an OpenAI upstream wrote', async () => {
    const response = await gateway.request('POST', '/v1/messages', {
      key,
      body: { model: 'digits-on-openai', max_tokens: 64, messages: [{ role: 'user', content: 'look' }] },
    });
    expect(response.status).toBe(200);
    expect(response.text).toContain(`"input":${ARGUMENTS}`);
  });

  it('answers a Gemini client with the call arguments an OpenAI upstream wrote', async () => {
    const response = await gateway.request('POST', '/v1beta/models/digits-on-openai:generateContent', {
      key,
      body: { contents: [{ role: 'user', parts: [{ text: 'look' }] }] },
    });
    expect(response.status).toBe(200);
    expect(response.text).toContain(`"args":${ARGUMENTS}`);
  });
});
