import type { WireRoute } from './fake-upstream.js';
import { writeSse } from './sse-writer.js';

/**
 * OpenAI's `POST /v1/responses` (native): echoes the last user text, whole or as typed events. Whole,
 * with function tools and no function_call_output last it calls the first tool, and after one it
 * answers with that output; asked for `reasoning.encrypted_content`, it reasons first, the encrypted
 * content naming how many input items it was given.
 */
const lastText = (input: unknown): string => {
  if (typeof input === 'string') return input;
  const last = [...((input as any[]) ?? [])].reverse().find((item) => item.role === 'user');
  if (!last) return '';
  return typeof last.content === 'string' ? last.content : last.content.map((part: any) => part.text ?? '').join(' ');
};

const usage = {
  input_tokens: 12,
  input_tokens_details: { cached_tokens: 2 },
  output_tokens: 6,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 18,
};

/** The whole answer's output items, as the doc comment above says. */
const wholeOutput = (body: any, message: Record<string, unknown>): Record<string, unknown>[] => {
  const items: any[] = Array.isArray(body.input) ? body.input : [];
  const last = items.at(-1);
  const tool = (body.tools ?? []).find((candidate: any) => candidate.type === 'function');
  const output: Record<string, unknown>[] = [];
  if (Array.isArray(body.include) && body.include.includes('reasoning.encrypted_content')) {
    output.push({ type: 'reasoning', id: 'rs_fake', summary: [], encrypted_content: `enc_fake_${items.length}` });
  }
  if (last?.type === 'function_call_output') {
    const text = `The tool said: ${String(last.output)}`;
    output.push({ ...message, content: [{ type: 'output_text', text, annotations: [] }] });
  } else if (tool) {
    output.push({
      type: 'function_call',
      id: 'fc_fake',
      call_id: 'call_fake_1',
      name: tool.name,
      arguments: '{"city":"Paris"}',
      status: 'completed',
    });
  } else output.push(message);
  return output;
};

const responses: WireRoute = async ({ request, response, fault }) => {
  const body = request.body;
  const text = `Native echo: ${lastText(body.input)}`;
  const base = {
    id: 'resp_fake',
    object: 'response',
    created_at: 1_700_000_000,
    model: body.model,
    error: null,
    incomplete_details: null,
    instructions: body.instructions ?? null,
    tools: [],
    parallel_tool_calls: true,
  };
  const message = {
    type: 'message',
    id: 'msg_fake',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
  if (!body.stream) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ...base, status: 'completed', output: wholeOutput(body, message), usage }));
    return;
  }
  const pieces = text.split(/(?= )/);
  let sequence = 0;
  const events: { type: string; [field: string]: unknown }[] = [
    { type: 'response.created', response: { ...base, status: 'in_progress', output: [], usage: null } },
    { type: 'response.in_progress', response: { ...base, status: 'in_progress', output: [], usage: null } },
    { type: 'response.output_item.added', output_index: 0, item: { ...message, status: 'in_progress', content: [] } },
    {
      type: 'response.content_part.added',
      item_id: 'msg_fake',
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text: '', annotations: [] },
    },
    ...pieces.map((delta) => ({
      type: 'response.output_text.delta',
      item_id: 'msg_fake',
      output_index: 0,
      content_index: 0,
      delta,
      logprobs: [],
    })),
    { type: 'response.output_text.done', item_id: 'msg_fake', output_index: 0, content_index: 0, text, logprobs: [] },
    {
      type: 'response.content_part.done',
      item_id: 'msg_fake',
      output_index: 0,
      content_index: 0,
      part: { type: 'output_text', text, annotations: [] },
    },
    { type: 'response.output_item.done', output_index: 0, item: message },
    { type: 'response.completed', response: { ...base, status: 'completed', output: [message], usage } },
  ];
  const sequenced = events.map((event) => ({ ...event, sequence_number: sequence++ }));
  await writeSse(
    response,
    sequenced.map((event) => JSON.stringify(event)),
    fault,
    sequenced.map((event) => event.type),
  );
};

export const openAiResponsesRoutes: Record<string, WireRoute> = {
  'POST /v1/responses': responses,
};
