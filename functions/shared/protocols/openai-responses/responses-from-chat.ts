import type { ResponsesRequest } from './responses-request.js';
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatUsage,
  FinishReason,
} from '../openai-chat/chat-completion-result.js';
import { toolCallItem } from './chat-call-to-response-item.js';
import { planTools } from './responses-tool-plan.js';
import type {
  ResponseMessageItem,
  ResponseObject,
  ResponseOutputItem,
  ResponseReasoningItem,
  ResponseStatus,
  ResponseStreamEvent,
  ResponseToolCallItem,
  ResponsesUsage,
} from './responses-result.js';

/**
 * Chat completion answers as Responses: a whole completion as a Response object, and a chunk stream as
 * the typed Responses events (`response.created` … `response.completed`, with `sequence_number`).
 * Pure: the stream translator keeps its state in a closure and emits objects.
 */

export interface ResponseContext {
  /** `resp_…`; item ids are derived from it. */
  readonly id: string;
  readonly createdAt: number;
  /** The public model id. */
  readonly model: string;
  readonly request: ResponsesRequest;
  /** Whether the gateway keeps the response (`store` in the envelope); `false` when absent. */
  readonly store?: boolean;
  /** The response this one continues, echoed in the envelope. */
  readonly previousResponseId?: string | null;
}

export const toResponsesUsage = (usage: ChatUsage | null | undefined): ResponsesUsage | null =>
  usage
    ? {
        input_tokens: usage.prompt_tokens ?? 0,
        output_tokens: usage.completion_tokens ?? 0,
        total_tokens: usage.total_tokens ?? (usage.prompt_tokens ?? 0) + (usage.completion_tokens ?? 0),
        input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0 },
        output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
      }
    : null;

const statusOf = (finish: FinishReason | null | undefined): Pick<ResponseObject, 'status' | 'incomplete_details'> =>
  finish === 'length'
    ? { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }
    : finish === 'content_filter'
      ? { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }
      : { status: 'completed', incomplete_details: null };

/** The Response envelope: the request's settings echoed back, as OpenAI does. */
export const responseEnvelope = (
  context: ResponseContext,
  status: ResponseStatus,
  output: ResponseOutputItem[],
  usage: ResponsesUsage | null,
  incomplete: ResponseObject['incomplete_details'] = null,
): ResponseObject => {
  const { request } = context;
  return {
    id: context.id,
    object: 'response',
    created_at: context.createdAt,
    status,
    background: false,
    error: null,
    incomplete_details: incomplete,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: request.metadata ?? {},
    model: context.model,
    output,
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: context.previousResponseId ?? null,
    reasoning: { effort: request.reasoning?.effort ?? null, summary: null },
    store: context.store ?? false,
    temperature: request.temperature ?? 1,
    text: request.text ?? { format: { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? 1,
    truncation: 'disabled',
    usage,
    user: request.user ?? null,
  };
};

const itemIds = (responseId: string) => {
  const suffix = responseId.replace(/^resp_/, '');
  return {
    reasoning: `rs_${suffix}`,
    message: `msg_${suffix}`,
    functionCall: (index: number) => `fc_${suffix}_${index}`,
  };
};

/** A whole chat completion (its first choice) as a Response. */
export const fromChatCompletion = (completion: ChatCompletion, context: ResponseContext): ResponseObject => {
  const ids = itemIds(context.id);
  const choice = completion.choices[0];
  const message = choice?.message;
  const output: ResponseOutputItem[] = [];
  if (message?.reasoning_content) {
    output.push({
      type: 'reasoning',
      id: ids.reasoning,
      summary: [],
      content: [{ type: 'reasoning_text', text: message.reasoning_content }],
    });
  }
  if (typeof message?.content === 'string' && message.content.length > 0) {
    output.push({
      type: 'message',
      id: ids.message,
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: message.content, annotations: [] }],
    });
  }
  const plan = planTools(context.request);
  (message?.tool_calls ?? []).forEach((call, index) => {
    output.push(
      toolCallItem(
        plan,
        {
          id: ids.functionCall(index),
          callId: call.id,
          chatName: call.function.name,
          chatArguments: call.function.arguments,
        },
        'completed',
      ),
    );
  });
  const { status, incomplete_details } = statusOf(choice?.finish_reason);
  return responseEnvelope(context, status, output, toResponsesUsage(completion.usage), incomplete_details);
};

type EventBody = { type: string; [field: string]: unknown };

/**
 * A chat chunk stream (first choice) as the Responses event stream. Items open when their first delta
 * arrives (reasoning, then the message, then each tool call) and close, in output order, at the end.
 */
export async function* responsesEventsFromChat(
  chunks: AsyncIterable<ChatCompletionChunk>,
  context: ResponseContext,
): AsyncGenerator<ResponseStreamEvent> {
  const ids = itemIds(context.id);
  let sequence = 0;
  const event = (body: EventBody): ResponseStreamEvent => ({ ...body, sequence_number: sequence++ });
  const output: ResponseOutputItem[] = [];
  let reasoning: { item: ResponseReasoningItem; index: number; text: string; open: boolean } | undefined;
  let message: { item: ResponseMessageItem; index: number; text: string; open: boolean } | undefined;
  const plan = planTools(context.request);
  type OpenCall = { item: ResponseToolCallItem; index: number; open: boolean; chatName: string; chatArguments: string };
  const calls = new Map<number, OpenCall>();
  let finish: FinishReason | null = null;
  let usage: ChatUsage | null | undefined;

  const snapshot = (status: ResponseStatus, incomplete: ResponseObject['incomplete_details'] = null) =>
    responseEnvelope(context, status, structuredClone(output), toResponsesUsage(usage), incomplete);

  function* closeReasoning(): Generator<ResponseStreamEvent> {
    if (!reasoning?.open) return;
    reasoning.open = false;
    const { item, index, text } = reasoning;
    item.content = [{ type: 'reasoning_text', text }];
    item.status = 'completed';
    yield event({
      type: 'response.reasoning_text.done',
      item_id: item.id,
      output_index: index,
      content_index: 0,
      text,
    });
    yield event({
      type: 'response.content_part.done',
      item_id: item.id,
      output_index: index,
      content_index: 0,
      part: { type: 'reasoning_text', text },
    });
    yield event({ type: 'response.output_item.done', output_index: index, item: structuredClone(item) });
  }

  function* closeMessage(): Generator<ResponseStreamEvent> {
    if (!message?.open) return;
    message.open = false;
    const { item, index, text } = message;
    const part = { type: 'output_text' as const, text, annotations: [], logprobs: [] };
    item.content = [part];
    item.status = 'completed';
    yield event({
      type: 'response.output_text.done',
      item_id: item.id,
      output_index: index,
      content_index: 0,
      text,
      logprobs: [],
    });
    yield event({ type: 'response.content_part.done', item_id: item.id, output_index: index, content_index: 0, part });
    yield event({ type: 'response.output_item.done', output_index: index, item: structuredClone(item) });
  }

  function* closeCall(call: OpenCall): Generator<ResponseStreamEvent> {
    if (!call.open) return;
    call.open = false;
    const { id, call_id: callId } = call.item;
    call.item = toolCallItem(
      plan,
      { id, callId, chatName: call.chatName, chatArguments: call.chatArguments },
      'completed',
    );
    const { item, index } = call;
    switch (item.type) {
      case 'function_call':
        yield event({
          type: 'response.function_call_arguments.done',
          item_id: item.id,
          output_index: index,
          name: item.name,
          arguments: item.arguments,
        });
        break;
      case 'custom_tool_call':
        // The chat function's arguments are JSON around the input: the input is whole only at the end.
        if (item.input) {
          yield event({
            type: 'response.custom_tool_call_input.delta',
            item_id: item.id,
            output_index: index,
            delta: item.input,
          });
        }
        yield event({
          type: 'response.custom_tool_call_input.done',
          item_id: item.id,
          output_index: index,
          input: item.input,
        });
        break;
      case 'tool_search_call':
        break;
      default: {
        const unexpected: never = item;
        throw new Error(`unexpected call item ${JSON.stringify(unexpected)}`);
      }
    }
    output[index] = item;
    yield event({ type: 'response.output_item.done', output_index: index, item: structuredClone(item) });
  }

  yield event({ type: 'response.created', response: snapshot('in_progress') });
  yield event({ type: 'response.in_progress', response: snapshot('in_progress') });

  for await (const chunk of chunks) {
    if (chunk.usage) usage = chunk.usage;
    const choice = chunk.choices.find((candidate) => candidate.index === 0);
    if (!choice) continue;
    const delta = choice.delta ?? {};
    if (typeof delta.reasoning_content === 'string' && delta.reasoning_content.length > 0) {
      if (!reasoning) {
        const item: ResponseReasoningItem = {
          type: 'reasoning',
          id: ids.reasoning,
          summary: [],
          content: [],
          status: 'in_progress',
        };
        reasoning = { item, index: output.length, text: '', open: true };
        output.push(item);
        yield event({ type: 'response.output_item.added', output_index: reasoning.index, item: structuredClone(item) });
        yield event({
          type: 'response.content_part.added',
          item_id: item.id,
          output_index: reasoning.index,
          content_index: 0,
          part: { type: 'reasoning_text', text: '' },
        });
      }
      if (reasoning.open) {
        reasoning.text += delta.reasoning_content;
        yield event({
          type: 'response.reasoning_text.delta',
          item_id: reasoning.item.id,
          output_index: reasoning.index,
          content_index: 0,
          delta: delta.reasoning_content,
        });
      }
    }
    if (typeof delta.content === 'string' && delta.content.length > 0) {
      yield* closeReasoning();
      if (!message) {
        const item: ResponseMessageItem = {
          type: 'message',
          id: ids.message,
          role: 'assistant',
          status: 'in_progress',
          content: [],
        };
        message = { item, index: output.length, text: '', open: true };
        output.push(item);
        yield event({ type: 'response.output_item.added', output_index: message.index, item: structuredClone(item) });
        yield event({
          type: 'response.content_part.added',
          item_id: item.id,
          output_index: message.index,
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
        });
      }
      if (message.open) {
        message.text += delta.content;
        yield event({
          type: 'response.output_text.delta',
          item_id: message.item.id,
          output_index: message.index,
          content_index: 0,
          delta: delta.content,
          logprobs: [],
        });
      }
    }
    for (const callDelta of delta.tool_calls ?? []) {
      yield* closeReasoning();
      yield* closeMessage();
      let call = calls.get(callDelta.index);
      if (!call) {
        const chatName = callDelta.function?.name ?? '';
        const item = toolCallItem(
          plan,
          {
            id: ids.functionCall(calls.size),
            callId: callDelta.id ?? `call_${context.id.slice(-12)}_${calls.size}`,
            chatName,
            chatArguments: '',
          },
          'in_progress',
        );
        call = { item, index: output.length, open: true, chatName, chatArguments: '' };
        calls.set(callDelta.index, call);
        output.push(item);
        yield event({ type: 'response.output_item.added', output_index: call.index, item: structuredClone(item) });
      }
      const piece = callDelta.function?.arguments;
      if (piece && call.open) {
        call.chatArguments += piece;
        if (call.item.type === 'function_call') {
          call.item.arguments += piece;
          yield event({
            type: 'response.function_call_arguments.delta',
            item_id: call.item.id,
            output_index: call.index,
            delta: piece,
          });
        }
      }
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }

  yield* closeReasoning();
  yield* closeMessage();
  for (const call of calls.values()) yield* closeCall(call);
  const { status, incomplete_details } = statusOf(finish);
  yield event({
    type: status === 'completed' ? 'response.completed' : 'response.incomplete',
    response: snapshot(status, incomplete_details),
  });
}
