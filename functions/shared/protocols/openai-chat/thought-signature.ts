/**
 * Gemini's `thoughtSignature` on a chat tool call. Gemini 3 signs each step of its reasoning and refuses
 * a replayed function call without its signature, so the signature rides on the chat form's tool call
 * as Google's own OpenAI-compatible API carries it: `extra_content.google.thought_signature`.
 */

export interface ThoughtSignatureCarrier {
  extra_content?: { google?: { thought_signature?: string } };
}

/** The signature a tool call carries, if any. */
export const thoughtSignatureOf = (call: unknown): string | undefined => {
  const signature = (call as ThoughtSignatureCarrier | undefined)?.extra_content?.google?.thought_signature;
  return typeof signature === 'string' && signature ? signature : undefined;
};

/** The field that carries a signature on a chat tool call (nothing when there is none). */
export const thoughtSignatureField = (signature: string | null | undefined): ThoughtSignatureCarrier =>
  signature ? { extra_content: { google: { thought_signature: signature } } } : {};

/**
 * Google's documented stand-in for a signature that was lost on the way (a conversation begun on another
 * provider, or a client that kept only name and arguments): Gemini 3 then accepts the replayed call
 * instead of refusing the whole turn; earlier models ignore it.
 */
export const SKIPPED_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';
