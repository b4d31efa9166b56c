import type { FakeExchange, WireRoute } from './fake-upstream.js';
import { writeSse } from './sse-writer.js';

/**
 * Gemini's generateContent wire format, for one upstream model name. Echoes the last user text;
 * with function declarations and no functionResponse yet it calls the first function (whole, as
 * Gemini does); after a functionResponse it answers with that response.
 */
const plan = (body: any) => {
  const last = (body.contents ?? []).at(-1);
  const parts: any[] = last?.parts ?? [];
  const functionResponse = parts.find((part) => part.functionResponse)?.functionResponse;
  const declarations = body.tools?.[0]?.functionDeclarations ?? [];
  if (declarations.length && !functionResponse && body.toolConfig?.functionCallingConfig?.mode !== 'NONE') {
    return { kind: 'tool' as const, name: declarations[0].name as string, args: { city: 'Paris', unit: 'celsius' } };
  }
  const text = functionResponse
    ? `The tool said: ${JSON.stringify(functionResponse.response)}`
    : `Echo: ${parts.map((part) => part.text ?? (part.inlineData ? '[image]' : '')).join(' ')}`;
  return { kind: 'text' as const, text };
};

export const geminiUsage = {
  promptTokenCount: 11,
  candidatesTokenCount: 7,
  totalTokenCount: 18,
  cachedContentTokenCount: 3,
};

const generate =
  (stream: boolean): WireRoute =>
  async ({ request, response, fault }: FakeExchange) => {
    const answer = plan(request.body);
    const base = { modelVersion: 'gemini-fake-001', responseId: 'resp_fake_1' };
    if (!stream) {
      const parts =
        answer.kind === 'tool' ? [{ functionCall: { name: answer.name, args: answer.args } }] : [{ text: answer.text }];
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
          usageMetadata: geminiUsage,
          ...base,
        }),
      );
      return;
    }
    const events: object[] = [];
    if (answer.kind === 'tool') {
      events.push({
        candidates: [
          {
            content: { role: 'model', parts: [{ functionCall: { name: answer.name, args: answer.args } }] },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: geminiUsage,
        ...base,
      });
    } else {
      const words = answer.text.split(/(?= )/);
      for (const [position, word] of words.entries()) {
        const last = position === words.length - 1;
        events.push({
          candidates: [
            {
              content: { role: 'model', parts: [{ text: word }] },
              ...(last ? { finishReason: 'STOP' } : {}),
              index: 0,
            },
          ],
          usageMetadata: last ? geminiUsage : { promptTokenCount: 11, totalTokenCount: 11 },
          ...base,
        });
      }
    }
    await writeSse(
      response,
      events.map((event) => JSON.stringify(event)),
      fault,
    );
  };

export const geminiRoutes = (upstreamModel: string): Record<string, WireRoute> => ({
  [`POST /v1beta/models/${upstreamModel}:generateContent`]: generate(false),
  [`POST /v1beta/models/${upstreamModel}:streamGenerateContent`]: generate(true),
});
