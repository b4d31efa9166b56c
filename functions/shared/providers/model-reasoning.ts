/**
 * Whether a model reasons (thinks) before it answers, when no admin said so. Translations read it:
 * a thinking request becomes a reasoning effort only for such a model (others refuse the field), and
 * OpenAI's reasoning models take `max_completion_tokens` where others take `max_tokens`.
 *
 * Matched on the id's last segment, so that `openai/o3`, `us.anthropic.claude-sonnet-4-…-v1:0` and
 * `models/gemini-2.5-pro` are recognised the same way as the bare names.
 */
const reasoningFamilies: readonly RegExp[] = [
  // OpenAI: the o-series and GPT-5 (its chat-tuned variants answer without reasoning).
  /^o[1-9](?:-|$)/,
  /^gpt-5(?!.*-chat)/,
  /^gpt-oss/,
  // Anthropic: extended thinking from Claude 3.7 Sonnet on.
  /claude-3-7-sonnet/,
  /claude-(?:opus|sonnet|haiku)-[4-9]/,
  /claude-[4-9]/,
  // Google: thinking models from Gemini 2.5 on.
  /^gemini-(?:2\.5|[3-9])/,
  // Open models served through OpenAI-compatible servers.
  /deepseek-(?:reasoner|r1)/,
  /^qwq/,
  /^qwen3(?!.*-instruct)/,
  /^grok-(?:3-mini|4)/,
  /^magistral/,
];

/** `a/b/name:0` → `name`: Bedrock ids end in a version after a colon, routers prefix a vendor path. */
const lastSegment = (id: string) => id.toLowerCase().replace(/:\d+$/, '').split('/').pop() ?? '';

/** The default reasoning capability of a model id. */
export const reasonsByDefault = (id: string): boolean => {
  const name = lastSegment(id).replace(/^(?:[a-z]{2,4}\.)?(?:anthropic|openai|google|deepseek|qwen)\./, '');
  return reasoningFamilies.some((family) => family.test(name));
};

/**
 * Claude models from before extended thinking (Claude 2, Instant, the 3 and 3.5 families), which
 * refuse a `thinking` field: known not to think, where an unknown name may.
 */
const beforeThinking = /^claude-(?:instant|2(?:[.-]|$)|3-(?!7-)|3-5-)/;

/** Whether a model id is known not to take thinking (a Messages request passed through natively). */
export const predatesThinking = (id: string): boolean =>
  beforeThinking.test(lastSegment(id).replace(/^(?:[a-z]{2,4}\.)?anthropic\./, ''));
