import type { FakeExchange, WireRoute } from './fake-upstream.js';
import { writeSse } from './sse-writer.js';

/**
 * OpenAI's chat completions wire format. The fake echoes the last user text; with tools and no tool
 * result yet it calls the first tool (arguments split over several chunks when streaming); after a
 * tool result it answers with that result.
 */
const textOf = (content: unknown): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((part: any) => (part.type === 'text' ? part.text : `[${part.type}]`)).join(' ')
      : '';

const plan = (body: any) => {
  const messages: any[] = body.messages ?? [];
  const last = messages.at(-1);
  if (body.tools?.length && last?.role !== 'tool') {
    return {
      kind: 'tool' as const,
      name: body.tools[0].function.name as string,
      arguments: '{"city":"Paris","unit":"celsius"}',
    };
  }
  const text = last?.role === 'tool' ? `The tool said: ${textOf(last.content)}` : `Echo: ${textOf(last?.content)}`;
  return { kind: 'text' as const, text };
};

const usage = {
  prompt_tokens: 11,
  completion_tokens: 7,
  total_tokens: 18,
  prompt_tokens_details: { cached_tokens: 3 },
  completion_tokens_details: { reasoning_tokens: 0 },
};

const chatCompletions: WireRoute = async ({ request, response, fault }: FakeExchange) => {
  const body = request.body;
  const answer = plan(body);
  const created = 1_700_000_000;
  const id = 'chatcmpl-fake';
  if (!body.stream) {
    const message =
      answer.kind === 'tool'
        ? {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_fake_1', type: 'function', function: { name: answer.name, arguments: answer.arguments } },
            ],
          }
        : { role: 'assistant', content: answer.text, refusal: null };
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id,
        object: 'chat.completion',
        created,
        model: body.model,
        choices: [{ index: 0, message, logprobs: null, finish_reason: answer.kind === 'tool' ? 'tool_calls' : 'stop' }],
        usage,
        system_fingerprint: 'fp_fake',
      }),
    );
    return;
  }
  const includeUsage = body.stream_options?.include_usage === true;
  const chunk = (delta: object, finish: string | null = null) =>
    JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created,
      model: body.model,
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(includeUsage ? { usage: null } : {}),
    });
  const events: string[] = [chunk({ role: 'assistant', content: '' })];
  if (answer.kind === 'tool') {
    events.push(
      chunk({
        tool_calls: [{ index: 0, id: 'call_fake_1', type: 'function', function: { name: answer.name, arguments: '' } }],
      }),
    );
    for (const piece of answer.arguments.match(/.{1,5}/g) ?? []) {
      events.push(chunk({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
    }
    events.push(chunk({}, 'tool_calls'));
  } else {
    for (const word of answer.text.split(/(?= )/)) events.push(chunk({ content: word }));
    events.push(chunk({}, 'stop'));
  }
  if (includeUsage) {
    events.push(
      JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage }),
    );
  }
  events.push('[DONE]');
  await writeSse(response, events, fault);
};

export const openAiRoutes: Record<string, WireRoute> = {
  'POST /v1/chat/completions': chatCompletions,
};
