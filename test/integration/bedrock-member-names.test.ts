import { parseJson } from '../../functions/shared/http/parse-json.js';
import { setFakeAwsCredentials } from '../support/fake-aws-credentials.js';
import { describeInProcess } from '../support/gateway-target.js';
import { oneEscapeNames } from '../support/json-parse-hazard.js';
import { startScriptedUpstream, type ScriptedUpstream } from '../support/scripted-upstream.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * The AWS SDK parses Bedrock's answers itself, with the global `JSON.parse`. A tool input is a
 * model's to write: one named a member `\` must not change the member names of another answer's
 * tool input (the V8 bug of the Node 24 line that `parse-json.ts` works around), and its numbers
 * reach the client with the digits the model wrote.
 */
const run = describeInProcess('the bug lives in the parsing process: the gateway must be this one');

run('member names in Bedrock answers', () => {
  let gateway: TestGateway;
  let bedrock: ScriptedUpstream;
  let key: string;
  let restoreAwsEnvironment: () => void = () => undefined;
  /** The tool input of the next Converse answer, as JSON text exactly. */
  let nextInput = '{}';

  beforeAll(async () => {
    restoreAwsEnvironment = setFakeAwsCredentials('AKIDMEMBERNAMES');
    bedrock = await startScriptedUpstream(
      () =>
        `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"tooluse_1","name":"look","input":${nextInput}}}]}},` +
        '"stopReason":"tool_use","usage":{"inputTokens":3,"outputTokens":2,"totalTokens":5},"metrics":{"latencyMs":1}}',
    );
    gateway = await startTestGateway();
    const created = await gateway.admin('PUT', '/admin/v1/channels/bedrock-names', {
      type: 'bedrock',
      baseUrl: bedrock.origin,
      models: ['names-on-bedrock'],
      modelMap: { 'names-on-bedrock': 'anthropic.names-v1:0' },
    });
    expect(created.status).toBe(200);
    ({ key } = await gateway.createAccountWithKey());
  });

  afterAll(async () => {
    await gateway?.close();
    await bedrock?.close();
    restoreAwsEnvironment();
  });

  /** The tool arguments a chat completion relays when Bedrock's tool input is `input`. */
  const argumentsFor = async (input: string): Promise<string> => {
    nextInput = input;
    const response = await gateway.request('POST', '/v1/chat/completions', {
      key,
      body: {
        model: 'names-on-bedrock',
        messages: [{ role: 'user', content: 'look' }],
        tools: [{ type: 'function', function: { name: 'look', parameters: { type: 'object' } } }],
      },
    });
    expect(response.status).toBe(200);
    return response.body.choices[0].message.tool_calls[0].function.arguments;
  };

  it("relays the digits of a tool input's numbers that a double cannot hold, on either parse path", async () => {
    const numbers = '"id":12345678901234567890,"ratio":0.10000000000000000001,"small":1.5,"list":[9007199254740993,-2]';
    expect(await argumentsFor(`{${numbers}}`)).toBe(`{${numbers}}`);
    // A one-escape member name sends the SDK's parse down the guarded reader.
    expect(await argumentsFor(`{"\\t":0,${numbers}}`)).toBe(`{"\\t":0,${numbers}}`);
  });

  it.each(oneEscapeNames)(
    'relays a tool input member written $escaped as $name after an answer that named one \\',
    async ({ escaped, name, first }) => {
      expect(Object.keys(parseJson(await argumentsFor(`{"${first}":1,"\\\\":2}`)) as object)).toEqual([first, '\\']);
      const relayed = parseJson(await argumentsFor(`{"${first}":1,"${escaped}":2}`)) as object;
      expect(Object.keys(relayed)).toEqual([first, name]);
    },
  );
});
