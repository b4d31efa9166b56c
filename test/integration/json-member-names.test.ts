import { describeInProcess } from '../support/gateway-target.js';
import { oneEscapeNames } from '../support/json-parse-hazard.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * A member named `\` in one request must not change the names in another's: on the Node 24 line,
 * V8's JSON.parse reads a one-escape member name (`"\u540d"`, as Python's json.dumps writes 名) as
 * `\` once the process has parsed an object whose member at the same place was named `\`.
 */
const run = describeInProcess('the bug lives in the parsing process: the gateway must be this one');

run('member names across requests', () => {
  let gateway: TestGateway;
  let upstream: ScriptedUpstream;
  let key: string;

  beforeAll(async () => {
    upstream = await startScriptedUpstream(() =>
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: 'upstream-model',
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      }),
    );
    gateway = await startTestGateway();
    const created = await gateway.admin('PUT', '/admin/v1/channels/names', {
      type: 'openai',
      baseUrl: `${upstream.origin}/v1`,
      models: ['names-model'],
    });
    expect(created.status).toBe(200);
    ({ key } = await gateway.createAccountWithKey());
  });

  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  /**
   * A chat request whose one tool takes a parameter of a name no other test uses, then one under the
   * given (JSON-escaped) name: V8 misreads a name where the object so far has met one name after it
   * before, and only that one (its members' transitions).
   */
  const withParameters = (escapedName: string, first: string) =>
    `{"model":"names-model","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"look","parameters":{"type":"object","properties":{"${first}":{"type":"string"},"${escapedName}":{"type":"string"}}}}}]}`;

  it.each(oneEscapeNames)(
    'sends a parameter written $escaped upstream as $name after a request named one \\',
    async ({ escaped, name, first }) => {
      const poison = await gateway.request('POST', '/v1/chat/completions', {
        key,
        body: withParameters('\\\\', first),
      });
      expect(poison.status).toBe(200);
      const response = await gateway.request('POST', '/v1/chat/completions', {
        key,
        body: withParameters(escaped, first),
      });
      expect(response.status).toBe(200);
      const sent = upstream.bodies.at(-1)!;
      expect(sent).toContain(`"properties":{"${first}":{"type":"string"},${JSON.stringify(name)}:{"type":"string"}}`);
    },
  );
});
