import { estimateMessageTokens } from '../shared/accounting/estimate-tokens.js';
import type { CatalogModel } from '../shared/catalog/model-catalog.js';
import type { ChatCompletionRequest } from '../shared/protocols/openai-chat/chat-completion-request.js';
import type { GeminiGenerateContentRequest } from '../shared/protocols/gemini/gemini-generate-content-request.js';
import { geminiNative } from '../shared/providers/gemini/gemini-native.js';
import { channelCall } from '../shared/routing/channel-call.js';
import { withFailover } from '../shared/routing/with-failover.js';
import type { Channel } from '../shared/store/channels.js';
import { isNativeGemini } from './gemini-relay.js';

/**
 * :countTokens: Google's own count when the model has a gemini channel (Gemini CLI sizes its context
 * with it), the gateway's estimate otherwise. Not metered: no tokens are generated.
 */
export const countGeminiTokens = async (
  body: GeminiGenerateContentRequest,
  chatRequest: ChatCompletionRequest,
  model: CatalogModel,
  channels: readonly Channel[],
  signal: AbortSignal,
): Promise<Record<string, unknown>> => {
  const native = channels.filter(isNativeGemini);
  if (native.length > 0) {
    const { result } = await withFailover(
      native,
      (candidate) => geminiNative.countTokens(channelCall(body, candidate, model, signal)),
      { signal },
    );
    return result;
  }
  return {
    totalTokens: estimateMessageTokens(chatRequest.messages),
  };
};
