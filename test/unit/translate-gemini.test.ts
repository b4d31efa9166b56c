import { cleanGeminiSchema } from '../../functions/shared/providers/gemini/clean-gemini-schema.js';
import { toGeminiRequest } from '../../functions/shared/providers/gemini/convert-to-gemini-contents.js';
import { fromGeminiResponse } from '../../functions/shared/providers/gemini/gemini-response.js';
import { createGeminiStreamTranslator } from '../../functions/shared/providers/gemini/gemini-stream.js';
import { mapGeminiFinishReason } from '../../functions/shared/providers/gemini/map-gemini-finish-reason.js';
import type { ChatCompletionChunk } from '../../functions/shared/protocols/openai-chat/chat-completion-result.js';
import { geminiGenerateContentRequestSchema } from '../../functions/shared/protocols/gemini/gemini-generate-content-request.js';
import { createChatToGeminiStream } from '../../functions/shared/protocols/gemini/chat-to-gemini-stream.js';
import { geminiToChatRequest } from '../../functions/shared/protocols/gemini/gemini-to-chat-request.js';
import { readChunks } from '../support/fixtures.js';

describe('toGeminiRequest', () => {
  test('maps roles, system instruction, images, tool calls and results, and generation config', () => {
    const body = toGeminiRequest({
      model: 'g',
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAA' } },
            { type: 'image_url', image_url: { url: 'https://x.test/a.png' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
            { id: 'c2', type: 'function', function: { name: 'g', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
        { role: 'tool', tool_call_id: 'c2', content: 'plain text' },
      ],
      temperature: 0.2,
      max_tokens: 50,
      stop: ['END'],
      response_format: { type: 'json_object' },
      tools: [
        {
          type: 'function',
          function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'number' } } } },
        },
      ],
      tool_choice: { type: 'function', function: { name: 'f' } },
    });

    expect(body).toEqual({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Look' },
            { inlineData: { mimeType: 'image/png', data: 'AAA' } },
            { fileData: { mimeType: 'image/png', fileUri: 'https://x.test/a.png' } },
          ],
        },
        {
          role: 'model',
          parts: [
            // A call replayed without its signature (it came from another provider) gets Google's stand-in.
            {
              functionCall: { id: 'c1', name: 'f', args: { a: 1 } },
              thoughtSignature: 'skip_thought_signature_validator',
            },
            { functionCall: { id: 'c2', name: 'g', args: {} } },
          ],
        },
        {
          role: 'user',
          parts: [
            { functionResponse: { id: 'c1', name: 'f', response: { ok: true } } },
            { functionResponse: { id: 'c2', name: 'g', response: { content: 'plain text' } } },
          ],
        },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      tools: [
        {
          functionDeclarations: [{ name: 'f', parameters: { type: 'object', properties: { a: { type: 'number' } } } }],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } },
      generationConfig: {
        temperature: 0.2,
        maxOutputTokens: 50,
        stopSequences: ['END'],
        responseMimeType: 'application/json',
      },
    });
  });
});

describe('cleanGeminiSchema', () => {
  test('drops the keywords Gemini rejects, at every depth', () => {
    expect(
      cleanGeminiSchema({
        $schema: 'x',
        type: 'object',
        additionalProperties: false,
        properties: {
          list: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              properties: { n: { type: ['integer', 'null'], default: 1, examples: [2] } },
            },
          },
          kind: { const: 'a' },
        },
      }),
    ).toEqual({
      type: 'object',
      properties: {
        list: { type: 'array', items: { type: 'object', properties: { n: { type: 'integer', nullable: true } } } },
        kind: { enum: ['a'] },
      },
    });
  });
});

describe('fromGeminiResponse', () => {
  test('maps function calls to tool_calls and usage with thoughts and cache', () => {
    const completion = fromGeminiResponse(
      {
        candidates: [
          {
            content: { role: 'model', parts: [{ functionCall: { name: 'f', args: { a: 1 } } }] },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: {
          promptTokenCount: 10,
          candidatesTokenCount: 4,
          thoughtsTokenCount: 2,
          totalTokenCount: 16,
          cachedContentTokenCount: 3,
        },
      },
      'p',
    );

    expect(completion.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { content: null, tool_calls: [{ id: 'call_p_0', function: { name: 'f', arguments: '{"a":1}' } }] },
    });
    expect(completion.usage).toEqual({
      prompt_tokens: 10,
      completion_tokens: 6,
      total_tokens: 16,
      prompt_tokens_details: { cached_tokens: 3 },
      completion_tokens_details: { reasoning_tokens: 2 },
    });
  });

  test.each([
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
  ])('maps finishReason %s to %s', (reason, finish) => {
    expect(mapGeminiFinishReason(reason, false)).toBe(finish);
  });
});

describe('the Gemini stream translator, event by event', () => {
  test('turns a recorded thought + text + function call stream into chat chunks and a usage chunk', () => {
    const translator = createGeminiStreamTranslator('p', 1);
    const chunks: ChatCompletionChunk[] = [
      ...readChunks('gemini/text-and-call-stream').flatMap((event) => translator.push(event)),
      ...translator.end(),
    ];
    const deltas = chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.delta));

    expect(deltas[0]).toEqual({ role: 'assistant', content: '' });
    expect(deltas.map((delta) => delta.reasoning_content ?? '').join('')).toBe('Thinking about it');
    expect(deltas.map((delta) => delta.content ?? '').join('')).toBe('Let me check.');
    expect(deltas.flatMap((delta) => delta.tool_calls ?? [])).toEqual([
      { index: 0, id: 'call_p_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
    expect(chunks.at(-2)!.choices[0]!.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({
      choices: [],
      usage: {
        prompt_tokens: 20,
        completion_tokens: 14,
        total_tokens: 34,
        prompt_tokens_details: { cached_tokens: 4 },
      },
    });
  });
});

describe('Gemini-style inbound', () => {
  test('a Gemini request with a function response becomes chat messages with matching tool call ids', () => {
    const request = geminiGenerateContentRequestSchema().parse({
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Weather?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp: 21 } } }] },
      ],
      tools: [
        {
          functionDeclarations: [
            { name: 'get_weather', parameters: { type: 'OBJECT', properties: { city: { type: 'STRING' } } } },
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: 'ANY' } },
      generationConfig: { maxOutputTokens: 64, temperature: 0 },
    });
    const chat = geminiToChatRequest(request, 'public', false);

    const callId = chat.messages[2]!.tool_calls![0]!.id;
    expect(chat.messages[3]).toEqual({ role: 'tool', tool_call_id: callId, content: '{"temp":21}' });
    expect(chat).toMatchObject({
      model: 'public',
      max_tokens: 64,
      temperature: 0,
      tool_choice: 'required',
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      ],
    });
  });

  test('a chat stream becomes Gemini events, with a split tool call sent whole and the finish and usage last', () => {
    const translator = createChatToGeminiStream('public');
    const events = [
      ...readChunks('openai/tool-call-stream').flatMap((chunk) => translator.push(chunk)),
      ...translator.end(),
    ];

    expect(events[0]!.candidates[0]!.content.parts).toEqual([{ text: 'Checking' }]);
    expect(events[1]!.candidates[0]!.content.parts).toEqual([
      { functionCall: { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } } },
      { functionCall: { id: 'call_2', name: 'get_time', args: {} } },
    ]);
    expect(events.at(-1)).toMatchObject({
      candidates: [{ finishReason: 'STOP' }],
      usageMetadata: {
        promptTokenCount: 50,
        candidatesTokenCount: 20,
        totalTokenCount: 70,
        cachedContentTokenCount: 10,
      },
      modelVersion: 'public',
      responseId: 'abc',
    });
  });
});
