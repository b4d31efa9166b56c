import * as z from '../../schemas/zod.js';
import { lazySchema, type LazyOutput } from '../../schemas/lazy-schema.js';

/**
 * Signed reasoning as the chat form carries it, beside `reasoning_content` (the plain text that
 * OpenAI-style clients read): each block as the vendor signed it, so that the next turn can hand it
 * back unchanged. A thinking block's signature proves its text; a redacted block is opaque data.
 * Channels that verify signatures write these back exactly; the others read only the text.
 */
export const thinkingBlockSchema = lazySchema(() =>
  z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.optional(z.string()) }),
    z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
  ]),
);

export type ThinkingBlock = LazyOutput<typeof thinkingBlockSchema>;

const thinkingBlocksSchema = lazySchema(() => z.array(thinkingBlockSchema()));

/** The signed blocks a chat answer or chunk carries, read leniently: anything malformed reads as none. */
export const readThinkingBlocks = (value: unknown): ThinkingBlock[] => {
  if (value === undefined || value === null) return [];
  const parsed = thinkingBlocksSchema().safeParse(value);
  return parsed.success ? parsed.data : [];
};

/** Only blocks a vendor can verify are worth sending back: signed thinking and redacted thinking. */
export const verifiableThinking = (blocks: readonly ThinkingBlock[] | undefined): ThinkingBlock[] =>
  (blocks ?? []).filter((block) => block.type === 'redacted_thinking' || (block.signature ?? '') !== '');
