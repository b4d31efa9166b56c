import type { FakeExchange, WireRoute } from './fake-upstream.js';
import { writeSse } from './sse-writer.js';

/**
 * Anthropic's Messages wire format. Like the OpenAI fake: echoes the last user text; with tools and
 * no tool result yet it calls the first tool (its JSON input split over several input_json_delta
 * events when streaming); after a tool result it answers with that result.
 */
const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content
          .map((block: any) =>
            block.type === 'text'
              ? block.text
              : block.type === 'tool_result'
                ? textOf(block.content)
                : `[${block.type}]`,
          )
          .join(' ')
      : '';

const plan = (body: any) => {
  const last = (body.messages ?? []).at(-1);
  const toolResult = Array.isArray(last?.content)
    ? last.content.find((block: any) => block.type === 'tool_result')
    : undefined;
  if (body.tools?.length && !toolResult && body.tool_choice?.type !== 'none') {
    return { kind: 'tool' as const, name: body.tools[0].name as string, input: '{"city":"Paris","unit":"celsius"}' };
  }
  const text = toolResult ? `The tool said: ${textOf(toolResult.content)}` : `Echo: ${textOf(last?.content)}`;
  return { kind: 'text' as const, text };
};

export const anthropicUsage = {
  input_tokens: 11,
  output_tokens: 7,
  cache_creation_input_tokens: 2,
  cache_read_input_tokens: 3,
};

const messages: WireRoute = async ({ request, response, fault }: FakeExchange) => {
  const body = request.body;
  const answer = plan(body);
  const id = 'msg_fake_1';
  const thinking = body.thinking?.type === 'enabled' ? 'Let me think.' : undefined;
  if (!body.stream) {
    const content: unknown[] = [];
    if (thinking) content.push({ type: 'thinking', thinking, signature: 'sig_fake' });
    content.push(
      answer.kind === 'tool'
        ? { type: 'tool_use', id: 'toolu_fake_1', name: answer.name, input: JSON.parse(answer.input) }
        : { type: 'text', text: answer.text },
    );
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content,
        stop_reason: answer.kind === 'tool' ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: anthropicUsage,
      }),
    );
    return;
  }
  const events: object[] = [
    {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...anthropicUsage, output_tokens: 1 },
      },
    },
  ];
  let index = 0;
  if (thinking) {
    events.push({
      type: 'content_block_start',
      index,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    });
    events.push({ type: 'ping' });
    events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });
    events.push({ type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: 'sig_fake' } });
    events.push({ type: 'content_block_stop', index });
    index += 1;
  }
  if (answer.kind === 'tool') {
    events.push({
      type: 'content_block_start',
      index,
      content_block: { type: 'tool_use', id: 'toolu_fake_1', name: answer.name, input: {} },
    });
    events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (const piece of answer.input.match(/.{1,5}/g) ?? [])
      events.push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
  } else {
    events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
    if (!thinking) events.push({ type: 'ping' });
    for (const word of answer.text.split(/(?= )/))
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: word } });
  }
  events.push({ type: 'content_block_stop', index });
  events.push({
    type: 'message_delta',
    delta: { stop_reason: answer.kind === 'tool' ? 'tool_use' : 'end_turn', stop_sequence: null },
    usage: { output_tokens: anthropicUsage.output_tokens },
  });
  events.push({ type: 'message_stop' });
  await writeSse(
    response,
    events.map((event) => JSON.stringify(event)),
    fault,
    events.map((event: any) => event.type),
  );
};

const countTokens: WireRoute = ({ response }) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ input_tokens: 42 }));
};

export const anthropicRoutes: Record<string, WireRoute> = {
  'POST /v1/messages': messages,
  'POST /v1/messages/count_tokens': countTokens,
};
