import { GatewayError } from '../../functions/shared/errors.js';
import { bedrockTarget } from '../../functions/shared/providers/bedrock/bedrock-client.js';
import { bedrockError, bedrockStreamError } from '../../functions/shared/providers/bedrock/bedrock-errors.js';
import { fromBedrockResponse } from '../../functions/shared/providers/bedrock/bedrock-response.js';
import { createBedrockStreamTranslator } from '../../functions/shared/providers/bedrock/bedrock-stream.js';
import { toBedrockConverseInput } from '../../functions/shared/providers/bedrock/convert-to-bedrock-converse.js';
import { mapBedrockStopReason } from '../../functions/shared/providers/bedrock/map-bedrock-stop-reason.js';
import { ClientAbortedError, UpstreamError } from '../../functions/shared/upstream/upstream-errors.js';
import type { ChatCompletionRequest } from '../../functions/shared/protocols/openai-chat/chat-completion-request.js';
import type { ChatCompletionChunk } from '../../functions/shared/protocols/openai-chat/chat-completion-result.js';
import { readChunks } from '../support/fixtures.js';

const PNG_BASE64 = 'iVBORw0KGgo=';
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

const converse = (request: Partial<ChatCompletionRequest>) =>
  toBedrockConverseInput(
    { model: 'public', messages: [{ role: 'user', content: 'hi' }], ...request } as ChatCompletionRequest,
    'anthropic.claude-v1:0',
  );

const thrown = (action: () => unknown): unknown => {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
};

describe('toBedrockConverseInput', () => {
  test('lifts system text, merges turns of one role, and maps images, tool calls, tool results and inference settings', () => {
    const input = converse({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in English.' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
          ],
        },
        { role: 'user', content: 'and tell me the weather' },
        {
          role: 'assistant',
          content: 'Checking.',
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
        { role: 'user', content: 'thanks' },
      ],
      max_tokens: 100,
      max_completion_tokens: 50,
      temperature: 1.5,
      top_p: 0.9,
      stop: 'END',
      tools: [weatherTool],
      tool_choice: 'auto',
    });

    expect(input).toEqual({
      modelId: 'anthropic.claude-v1:0',
      system: [{ text: 'Be brief.' }, { text: 'Answer in English.' }],
      messages: [
        {
          role: 'user',
          content: [
            { text: 'Look' },
            { image: { format: 'png', source: { bytes: Buffer.from(PNG_BASE64, 'base64') } } },
            { text: 'and tell me the weather' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { text: 'Checking.' },
            { toolUse: { toolUseId: 'call_1', name: 'get_weather', input: { city: 'Paris' } } },
          ],
        },
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 'call_1', content: [{ text: 'sunny' }] } }, { text: 'thanks' }],
        },
      ],
      inferenceConfig: { maxTokens: 50, temperature: 1, topP: 0.9, stopSequences: ['END'] },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: 'get_weather',
              description: 'The weather',
              inputSchema: { json: weatherTool.function.parameters },
            },
          },
        ],
        toolChoice: { auto: {} },
      },
    });
  });

  test('sends no system, inference or tool settings the client did not give', () => {
    expect(converse({})).toEqual({
      modelId: 'anthropic.claude-v1:0',
      messages: [{ role: 'user', content: [{ text: 'hi' }] }],
    });
  });

  test.each([
    ['required', { any: {} }],
    [{ type: 'function', function: { name: 'get_weather' } }, { tool: { name: 'get_weather' } }],
    [undefined, undefined],
  ])('maps tool_choice %j to %j', (choice, expected) => {
    const input = converse({ tools: [weatherTool], tool_choice: choice as ChatCompletionRequest['tool_choice'] });

    expect(input.toolConfig?.toolChoice).toEqual(expected);
    expect(input.toolConfig?.tools).toHaveLength(1);
  });

  test('leaves the tools out for tool_choice none, unless the conversation already holds tool calls', () => {
    expect(converse({ tools: [weatherTool], tool_choice: 'none' }).toolConfig).toBeUndefined();

    const withHistory = converse({
      tools: [weatherTool],
      tool_choice: 'none',
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'rain' },
      ],
    });
    expect(withHistory.toolConfig).toEqual({
      tools: [expect.objectContaining({ toolSpec: expect.objectContaining({ name: 'get_weather' }) })],
    });
  });

  test('wraps tool arguments that are not a JSON object instead of failing', () => {
    const input = converse({
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          tool_calls: [
            { id: 'a', type: 'function', function: { name: 'f', arguments: 'not json' } },
            { id: 'b', type: 'function', function: { name: 'g', arguments: '[1]' } },
          ],
        },
      ],
    });

    expect(input.messages![1]!.content).toEqual([
      { toolUse: { toolUseId: 'a', name: 'f', input: { arguments: 'not json' } } },
      { toolUse: { toolUseId: 'b', name: 'g', input: { value: [1] } } },
    ]);
  });

  test('takes a PDF file part as a document block with a name Bedrock accepts', () => {
    const input = converse({
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'file',
              file: { filename: 'Q3 report_final.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
            },
          ],
        },
      ],
    });

    expect(input.messages![0]!.content).toEqual([
      { document: { format: 'pdf', name: 'Q3 report-final', source: { bytes: Buffer.from('JVBERi0=', 'base64') } } },
    ]);
  });

  test('refuses an image by link with a 400 naming the part, since Bedrock takes inline images only', () => {
    const error = thrown(() =>
      converse({
        messages: [
          { role: 'user', content: 'a' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'see' },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.png' } },
            ],
          },
        ],
      }),
    ) as GatewayError;

    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_value', param: 'messages[1].content[1].image_url.url' });
    expect(error.message).toMatch(/inline/);
  });

  test('refuses an image format Bedrock does not take', () => {
    const error = thrown(() =>
      converse({
        messages: [
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } }] },
        ],
      }),
    );

    expect(error).toMatchObject({ status: 400, code: 'invalid_value', param: 'messages[0].content[0].image_url.url' });
  });
});

describe('fromBedrockResponse', () => {
  test('maps text, reasoning, tool calls, the stop reason and usage with cached input', () => {
    const completion = fromBedrockResponse(
      {
        output: {
          message: {
            role: 'assistant',
            content: [
              { reasoningContent: { reasoningText: { text: 'Think.', signature: 'sig' } } },
              { text: 'Calling.' },
              { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
            ],
          },
        },
        stopReason: 'tool_use',
        usage: { inputTokens: 10, outputTokens: 5, totalTokens: 35, cacheReadInputTokens: 20 },
      },
      { id: 'req-1', model: 'm', created: 1 },
    );

    expect(completion).toEqual({
      id: 'chatcmpl-req-1',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: 'Calling.',
            tool_calls: [
              { id: 'tooluse_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            ],
            reasoning_content: 'Think.',
            refusal: null,
            thinking_blocks: [{ type: 'thinking', thinking: 'Think.', signature: 'sig' }],
          },
          finish_reason: 'tool_calls',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: 30,
        completion_tokens: 5,
        total_tokens: 35,
        prompt_tokens_details: { cached_tokens: 20 },
      },
    });
  });

  test('gives null content to an answer made only of tool calls', () => {
    const completion = fromBedrockResponse(
      {
        output: { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 't', name: 'f', input: {} } }] } },
        stopReason: 'tool_use',
        usage: undefined,
      },
      { id: 'r', model: 'm' },
    );

    expect(completion.choices[0]!.message.content).toBeNull();
    expect(completion.usage).toBeUndefined();
  });
});

describe('mapBedrockStopReason', () => {
  test.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['content_filtered', 'content_filter'],
    ['guardrail_intervened', 'content_filter'],
    ['something_new', 'stop'],
    [undefined, null],
  ])('maps %s to %s', (reason, expected) => {
    expect(mapBedrockStopReason(reason)).toBe(expected);
  });
});

describe('createBedrockStreamTranslator', () => {
  const translate = (fixture: string) => {
    const translator = createBedrockStreamTranslator({ id: 'req-1', model: 'm', created: 1 });
    const chunks: ChatCompletionChunk[] = [];
    for (const event of readChunks(`bedrock/${fixture}`)) chunks.push(...translator.push(event));
    chunks.push(...translator.end());
    return { chunks, done: translator.done };
  };

  test('turns a recorded ConverseStream into OpenAI chunks: role, reasoning, text, tool calls in order, finish, usage', () => {
    const { chunks, done } = translate('text-and-tool-stream');

    expect(done).toBe(true);
    expect(chunks.map((chunk) => chunk.choices[0]?.delta ?? null)).toEqual([
      { role: 'assistant', content: '' },
      { reasoning_content: 'The user wants the weather.' },
      { thinking_blocks: [{ type: 'thinking', thinking: '', signature: 'EqQBCkYIBxgCKkD' }] },
      { content: 'Let me' },
      { content: ' check.' },
      {
        tool_calls: [
          {
            index: 0,
            id: 'tooluse_kZJMlvQmRJ6eAyJE5GIl7Q',
            type: 'function',
            function: { name: 'get_weather', arguments: '' },
          },
        ],
      },
      { tool_calls: [{ index: 0, function: { arguments: '{"city": "Pa' } }] },
      { tool_calls: [{ index: 0, function: { arguments: 'ris"}' } }] },
      {
        tool_calls: [
          {
            index: 1,
            id: 'tooluse_2mT0dXJ8Qp2B3vFqM1aZ9w',
            type: 'function',
            function: { name: 'get_time', arguments: '' },
          },
        ],
      },
      { tool_calls: [{ index: 1, function: { arguments: '{"zone": "CET"}' } }] },
      {},
      null,
    ]);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toEqual({
      id: 'chatcmpl-req-1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [],
      usage: {
        prompt_tokens: 1412,
        completion_tokens: 96,
        total_tokens: 1508,
        prompt_tokens_details: { cached_tokens: 1000 },
      },
    });
    expect(new Set(chunks.map((chunk) => chunk.id))).toEqual(new Set(['chatcmpl-req-1']));
  });

  test('throws a non-retryable upstream error for an exception event in the stream', () => {
    const error = thrown(() => translate('model-stream-error')) as UpstreamError;

    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 502, retryable: false });
    expect(error.message).toContain('The model produced an invalid sequence.');
  });

  test('is not done, and has no usage, before messageStop and metadata', () => {
    const translator = createBedrockStreamTranslator({ id: 'r', model: 'm' });
    translator.push({ messageStart: { role: 'assistant' } });

    expect(translator.done).toBe(false);
    expect(translator.end()).toEqual([]);
  });
});

describe('bedrockError', () => {
  const sdkError = (name: string, status: number, message = `${name} message`) =>
    Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });

  test.each([
    ['ThrottlingException', 429, 429, true],
    ['ServiceQuotaExceededException', 400, 429, true],
    ['ServiceUnavailableException', 503, 502, true],
    ['InternalServerException', 500, 502, true],
    ['ModelNotReadyException', 429, 502, true],
    ['ModelTimeoutException', 408, 504, true],
    ['AccessDeniedException', 403, 502, true],
    ['UnrecognizedClientException', 403, 502, true],
    ['ResourceNotFoundException', 404, 502, true],
    ['ValidationException', 400, 400, false],
  ])('maps %s (HTTP %d) to %d, retryable %s', (name, httpStatus, status, retryable) => {
    expect(bedrockError(sdkError(name, httpStatus))).toMatchObject({ status, retryable });
  });

  test.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'maps an error named %s as any other unknown name, not by what every object answers to',
    (name) => {
      for (const httpStatus of [400, 500]) {
        const { status, retryable } = bedrockError(sdkError('SomeNewException', httpStatus)) as never;
        expect(bedrockError(sdkError(name, httpStatus))).toMatchObject({ status, retryable });
        expect(typeof status).toBe('number');
      }
    },
  );

  test("relays a ValidationException's message to the client", () => {
    expect(bedrockError(sdkError('ValidationException', 400, 'messages: the final turn must be user')).message).toBe(
      'messages: the final turn must be user',
    );
  });

  test('maps network failures and the SDK timeouts apart', () => {
    expect(bedrockError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toMatchObject({
      status: 502,
      code: 'upstream_error',
      retryable: true,
    });
    expect(
      bedrockError(Object.assign(new Error('socket hang up'), { name: 'TimeoutError', code: 'ECONNRESET' })),
    ).toMatchObject({ status: 502, code: 'upstream_error' });
    expect(
      bedrockError(Object.assign(new Error('did not establish a connection'), { name: 'TimeoutError' })).message,
    ).toMatch(/connect/);
    expect(
      bedrockError(Object.assign(new Error('exceeded the configured 100 ms requestTimeout'), { name: 'TimeoutError' })),
    ).toMatchObject({ status: 504, code: 'upstream_timeout' });
  });

  test('reports a missing AWS identity as a failure of the gateway, not of the client', () => {
    expect(
      bedrockError(
        Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' }),
      ),
    ).toMatchObject({ status: 502, retryable: true });
  });

  test('turns anything after the client went away into a ClientAbortedError', () => {
    const controller = new AbortController();
    controller.abort();

    expect(bedrockError(sdkError('ThrottlingException', 429), controller.signal)).toBeInstanceOf(ClientAbortedError);
  });

  test('makes a mid-stream exception non-retryable and says it happened mid-stream', () => {
    const error = bedrockStreamError(sdkError('ThrottlingException', 429, 'slow down')) as UpstreamError;

    expect(error).toMatchObject({ status: 429, retryable: false });
    expect(error.message).toBe('The upstream provider failed mid-stream: slow down');
  });
});

describe('bedrockTarget', () => {
  test.each([
    [null, 'eu-west-1', { region: 'eu-west-1', endpoint: undefined }],
    [null, '', { region: 'us-east-1', endpoint: undefined }],
    [
      'https://bedrock-runtime.us-west-2.amazonaws.com/',
      'eu-west-1',
      { region: 'us-west-2', endpoint: 'https://bedrock-runtime.us-west-2.amazonaws.com' },
    ],
    [
      'https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com',
      'us-east-1',
      { region: 'us-gov-west-1', endpoint: 'https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com' },
    ],
    [
      'https://vpce-0a1b-x1y2.bedrock-runtime.ap-southeast-2.vpce.amazonaws.com',
      'us-east-1',
      {
        region: 'ap-southeast-2',
        endpoint: 'https://vpce-0a1b-x1y2.bedrock-runtime.ap-southeast-2.vpce.amazonaws.com',
      },
    ],
    ['http://127.0.0.1:4010', 'eu-central-1', { region: 'eu-central-1', endpoint: 'http://127.0.0.1:4010' }],
  ])('baseUrl %s with AWS_REGION %s → %j', (baseUrl, region, expected) => {
    expect(bedrockTarget({ baseUrl }, region)).toEqual(expected);
  });
});
