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

/** The vector the fake answers for input `index` of a batch: recognisable, float32-exact, `dimensions` long. */
export const geminiFakeVector = (index: number, dimensions = 3): number[] =>
  Array.from({ length: dimensions }, (_, position) => (position === 0 ? 0.5 + index : -0.125 * position));

/**
 * `batchEmbedContents`, strict as Google is: every request names the model of the path as
 * `models/{model}` and carries text parts; anything else is a 400 INVALID_ARGUMENT.
 */
const batchEmbed =
  (upstreamModel: string): WireRoute =>
  ({ request, response }: FakeExchange) => {
    const requests: any[] = Array.isArray(request.body?.requests) ? request.body.requests : [];
    const valid =
      requests.length > 0 &&
      requests.every(
        (entry) =>
          entry.model === `models/${upstreamModel}` &&
          Array.isArray(entry.content?.parts) &&
          entry.content.parts.every((part: any) => typeof part.text === 'string'),
      );
    if (!valid) {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: { code: 400, message: 'Invalid batch request.', status: 'INVALID_ARGUMENT' } }),
      );
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        embeddings: requests.map((entry, index) => ({
          values: geminiFakeVector(index, entry.outputDimensionality ?? 3),
        })),
      }),
    );
  };

/** `countTokens`: a count of the words of the request's text parts, as `totalTokens`. */
const countTokens: WireRoute = ({ request, response }: FakeExchange) => {
  const contents: any[] = Array.isArray(request.body?.contents) ? request.body.contents : [];
  const words = contents
    .flatMap((content) => (Array.isArray(content?.parts) ? content.parts : []))
    .map((part: any) => (typeof part?.text === 'string' ? part.text.split(/\s+/).filter(Boolean).length : 0))
    .reduce((sum: number, count: number) => sum + count, 0);
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ totalTokens: words }));
};

export const geminiRoutes = (upstreamModel: string): Record<string, WireRoute> => ({
  [`POST /v1beta/models/${upstreamModel}:batchEmbedContents`]: batchEmbed(upstreamModel),
  [`POST /v1beta/models/${upstreamModel}:countTokens`]: countTokens,
  [`POST /v1beta/models/${upstreamModel}:generateContent`]: generate(false),
  [`POST /v1beta/models/${upstreamModel}:streamGenerateContent`]: generate(true),
});
