import type { FakeExchange, WireRoute } from './fake-upstream.js';
import { geminiUsage } from './gemini-wire.js';
import { writeSse } from './sse-writer.js';

/**
 * Gemini's generateContent as strict as Google's: unknown fields, bad function names and (for Gemini 3
 * models) a replayed function call without the thought signature Gemini gave it are refused with
 * Google's own error text. With function declarations and no function response yet it calls the first
 * function, signed; otherwise it echoes (or quotes the function response). :countTokens answers too.
 */

const TOP_LEVEL_FIELDS = new Set([
  'contents',
  'systemInstruction',
  'tools',
  'toolConfig',
  'generationConfig',
  'safetySettings',
  'cachedContent',
  'labels',
  'model',
]);

// Google's rule for function names: a letter or underscore first, then letters, digits, _ . : -
const FUNCTION_NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/;

/** What this fake signs function calls with; a replay must bring it (or Google's stand-in) back. */
export const FAKE_THOUGHT_SIGNATURE = 'c2lnbmVkLWJ5LXN0cmljdC1nZW1pbmk=';
const ACCEPTED_SIGNATURES = new Set([FAKE_THOUGHT_SIGNATURE, 'skip_thought_signature_validator']);

const refuse = (exchange: FakeExchange, message: string) => {
  exchange.response.writeHead(400, { 'content-type': 'application/json' });
  exchange.response.end(JSON.stringify({ error: { code: 400, message, status: 'INVALID_ARGUMENT' } }));
};

/** Google's refusal of the request, or undefined when it would accept it. */
const refusalOf = (body: any, model: string): string | undefined => {
  if (typeof body !== 'object' || body === null) return 'Invalid JSON payload received.';
  for (const field of Object.keys(body)) {
    if (!TOP_LEVEL_FIELDS.has(field))
      return `Invalid JSON payload received. Unknown name "${field}": Cannot find field.`;
  }
  for (const [toolIndex, tool] of (body.tools ?? []).entries()) {
    for (const [index, declaration] of (tool.functionDeclarations ?? []).entries()) {
      if (!FUNCTION_NAME.test(String(declaration.name))) {
        return `* GenerateContentRequest.tools[${toolIndex}].function_declarations[${index}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.\n`;
      }
    }
  }
  if (!model.startsWith('gemini-3')) return undefined;
  for (const [contentIndex, content] of (body.contents ?? []).entries()) {
    if (content.role !== 'model') continue;
    const calls = (content.parts ?? []).map((part: any, position: number) => ({ part, position }));
    const first = calls.find(({ part }: { part: any }) => part.functionCall);
    if (!first) continue;
    if (!ACCEPTED_SIGNATURES.has(first.part.thoughtSignature)) {
      return first.part.thoughtSignature
        ? `Unable to submit request because Thought signature is not valid.. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini`
        : `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first.part.functionCall.name}\` , position ${contentIndex + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
    }
  }
  return undefined;
};

/** The answer's parts: a signed call of the first function, or text (echo, or the tool's result). */
const answerParts = (body: any): { parts: any[]; text: string } => {
  const parts: any[] = body.contents?.at(-1)?.parts ?? [];
  const functionResponse = parts.find((part) => part.functionResponse)?.functionResponse;
  const declarations = body.tools?.flatMap((tool: any) => tool.functionDeclarations ?? []) ?? [];
  if (declarations.length && !functionResponse && body.toolConfig?.functionCallingConfig?.mode !== 'NONE') {
    const call = { name: declarations[0].name, args: { path: 'hello.txt' } };
    return { parts: [{ functionCall: call, thoughtSignature: FAKE_THOUGHT_SIGNATURE }], text: '' };
  }
  const text = functionResponse
    ? `The tool said: ${JSON.stringify(functionResponse.response)}`
    : `Echo: ${parts.map((part) => part.text ?? '').join(' ')}`;
  return { parts: [{ text }], text };
};

const base = { modelVersion: 'gemini-3-strict-001', responseId: 'resp_strict_1' };

const generate =
  (stream: boolean): WireRoute =>
  async ({ request, response, fault }) => {
    const { parts, text } = answerParts(request.body);
    if (!stream) {
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
    const pieces = text ? text.split(/(?= )/).map((piece) => [{ text: piece }]) : [parts];
    const events = pieces.map((piece, index) => {
      const last = index === pieces.length - 1;
      return JSON.stringify({
        candidates: [{ content: { role: 'model', parts: piece }, ...(last ? { finishReason: 'STOP' } : {}), index: 0 }],
        usageMetadata: last ? geminiUsage : { promptTokenCount: geminiUsage.promptTokenCount },
        ...base,
      });
    });
    await writeSse(response, events, fault);
  };

const countTokens: WireRoute = (exchange) => {
  const text = JSON.stringify(exchange.request.body?.contents ?? []);
  exchange.response.writeHead(200, { 'content-type': 'application/json' });
  exchange.response.end(JSON.stringify({ totalTokens: Math.ceil(text.length / 4), promptTokensDetails: [] }));
};

export const strictGeminiRoutes = (upstreamModel: string): Record<string, WireRoute> => {
  const strict =
    (route: WireRoute): WireRoute =>
    async (exchange) => {
      const refusal = refusalOf(exchange.request.body, upstreamModel);
      if (refusal) return refuse(exchange, refusal);
      return route(exchange);
    };
  return {
    [`POST /v1beta/models/${upstreamModel}:generateContent`]: strict(generate(false)),
    [`POST /v1beta/models/${upstreamModel}:streamGenerateContent`]: strict(generate(true)),
    [`POST /v1beta/models/${upstreamModel}:countTokens`]: strict(countTokens),
  };
};
