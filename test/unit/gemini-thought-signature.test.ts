import { toGeminiRequest } from '../../functions/shared/providers/gemini/convert-to-gemini-contents.js';
import { fromGeminiResponse } from '../../functions/shared/providers/gemini/gemini-response.js';
import { createGeminiStreamTranslator } from '../../functions/shared/providers/gemini/gemini-stream.js';
import { chatToGeminiResponse } from '../../functions/shared/protocols/gemini/chat-to-gemini-response.js';
import { geminiToChatRequest } from '../../functions/shared/protocols/gemini/gemini-to-chat-request.js';
import { geminiGenerateContentRequestSchema } from '../../functions/shared/protocols/gemini/gemini-generate-content-request.js';
import type { ChatCompletionRequest } from '../../functions/shared/protocols/openai-chat/chat-completion-request.js';

const signedCall = {
  candidates: [
    {
      content: {
        role: 'model',
        parts: [
          { functionCall: { name: 'read_file', args: { path: 'a.txt' } }, thoughtSignature: 'c2lnbmVkLXN0ZXAtMQ==' },
          { functionCall: { name: 'read_file', args: { path: 'b.txt' } } },
        ],
      },
      finishReason: 'STOP',
    },
  ],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
};

describe("Gemini 3's thought signatures through the chat form", () => {
  it('keeps the signature on the chat tool call of a whole answer and sends it back on the next turn', () => {
    const completion = fromGeminiResponse(signedCall, 'id');
    const calls = completion.choices[0]!.message.tool_calls!;
    expect(calls[0]).toMatchObject({ extra_content: { google: { thought_signature: 'c2lnbmVkLXN0ZXAtMQ==' } } });
    expect(calls[1]).not.toHaveProperty('extra_content');

    const next = toGeminiRequest({
      model: 'gemini-3-pro-preview',
      messages: [
        { role: 'user', content: 'read both' },
        { role: 'assistant', content: null, tool_calls: calls },
        { role: 'tool', tool_call_id: calls[0]!.id, content: 'A' },
        { role: 'tool', tool_call_id: calls[1]!.id, content: 'B' },
      ],
    } as ChatCompletionRequest);
    // Only the first call of a step is signed; the parallel one stays unsigned, as Gemini sent it.
    expect((next as { contents: { parts: unknown[] }[] }).contents[1]!.parts).toEqual([
      expect.objectContaining({ thoughtSignature: 'c2lnbmVkLXN0ZXAtMQ==' }),
      expect.not.objectContaining({ thoughtSignature: expect.anything() }),
    ]);
  });

  it('keeps the signature on streamed tool call deltas', () => {
    const translator = createGeminiStreamTranslator('id');
    const deltas = translator.push(signedCall).flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(deltas[0]).toMatchObject({ extra_content: { google: { thought_signature: 'c2lnbmVkLXN0ZXAtMQ==' } } });
  });

  it('carries a Gemini client signature into the chat form and out again', () => {
    const request = geminiGenerateContentRequestSchema().parse({
      contents: [
        { role: 'user', parts: [{ text: 'read a' }] },
        {
          role: 'model',
          parts: [{ functionCall: { name: 'read_file', args: { path: 'a' } }, thoughtSignature: 'c2ln' }],
        },
        { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: { content: 'A' } } }] },
      ],
      generationConfig: { topK: 40 },
    });
    const chat = geminiToChatRequest(request, 'public', false);
    const call = chat.messages[1]!.tool_calls![0]!;
    expect(call).toMatchObject({ extra_content: { google: { thought_signature: 'c2ln' } } });

    const answer = chatToGeminiResponse(
      {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'm',
        choices: [
          { index: 0, finish_reason: 'tool_calls', message: { role: 'assistant', content: null, tool_calls: [call] } },
        ],
      },
      'public',
    );
    expect(answer.candidates[0]!.content.parts[0]).toMatchObject({ thoughtSignature: 'c2ln' });
  });
});
