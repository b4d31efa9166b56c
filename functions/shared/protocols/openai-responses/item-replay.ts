import type { ThinkingBlock } from '../openai-chat/thinking-blocks.js';
import type { ThoughtSignatureCarrier } from '../openai-chat/thought-signature.js';

/**
 * What a stored output item must carry when it is sent back on a later turn, though the client never
 * sees it: OpenAI's encrypted reasoning, a vendor's signed thinking (Anthropic, Bedrock) and a
 * Gemini thought signature on a tool call. Kept beside the items, by item id.
 */
export interface ItemReplay {
  /** A reasoning item's `encrypted_content`, for native Responses channels. */
  readonly encrypted_content?: string;
  /** Signed thinking that opened the assistant turn this item begins, for chat channels. */
  readonly thinking_blocks?: ThinkingBlock[];
  /** The chat tool call's provider fields (a Gemini thought signature), for chat channels. */
  readonly extra_content?: ThoughtSignatureCarrier['extra_content'];
}

/** An item's replay data, if it has any. */
export type ReplayLookup = (item: Readonly<Record<string, unknown>>) => ItemReplay | undefined;
