import { contentText, estimateMessageTokens } from '../../accounting/estimate-tokens.js';
import type { ChatCompletionRequest } from '../../protocols/openai-chat/chat-completion-request.js';
import type { ChatToolCall, ChatUsage, FinishReason } from '../../protocols/openai-chat/chat-completion-result.js';

/** What the demo model answers: fixed text built from the request, so every run is the same. */
export interface DemoAnswer {
  readonly words: readonly string[];
  readonly toolCall: ChatToolCall | undefined;
  readonly finishReason: FinishReason;
  readonly usage: ChatUsage;
}

const QUOTE_LIMIT = 120;

const lastUserText = (request: ChatCompletionRequest): string => {
  const last = [...request.messages].reverse().find((message) => message.role === 'user');
  const text = contentText(last?.content).replace(/\s+/g, ' ').trim();
  return text.length > QUOTE_LIMIT ? `${text.slice(0, QUOTE_LIMIT)}…` : text;
};

const requiredTool = (request: ChatCompletionRequest): string | undefined => {
  const choice = request.tool_choice;
  if (!request.tools?.length || choice === undefined || choice === 'none' || choice === 'auto') return undefined;
  return typeof choice === 'object' ? choice.function.name : request.tools[0]!.function.name;
};

export const demoAnswer = (request: ChatCompletionRequest, requestId: string): DemoAnswer => {
  const promptTokens = estimateMessageTokens(request.messages);
  const toolName = requiredTool(request);
  if (toolName) {
    const toolCall: ChatToolCall = {
      id: `call_${requestId.slice(-12)}`,
      type: 'function',
      function: { name: toolName, arguments: '{}' },
    };
    return {
      words: [],
      toolCall,
      finishReason: 'tool_calls',
      usage: { prompt_tokens: promptTokens, completion_tokens: 5, total_tokens: promptTokens + 5 },
    };
  }
  const quoted = lastUserText(request);
  const text = quoted
    ? `This is demo-1, the gateway's built-in demo model. You said: "${quoted}". Configure a channel to reach a real model.`
    : "This is demo-1, the gateway's built-in demo model. Configure a channel to reach a real model.";
  const all = text.split(' ').map((word, index) => (index === 0 ? word : ` ${word}`));
  const limit = request.max_completion_tokens ?? request.max_tokens ?? Number.POSITIVE_INFINITY;
  const words = all.slice(0, limit);
  return {
    words,
    toolCall: undefined,
    finishReason: words.length < all.length ? 'length' : 'stop',
    usage: { prompt_tokens: promptTokens, completion_tokens: words.length, total_tokens: promptTokens + words.length },
  };
};
