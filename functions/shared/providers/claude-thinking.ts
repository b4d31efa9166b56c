/**
 * Claude's thinking settings, shared by the channel types that serve Claude (Anthropic's API and
 * Bedrock): the answer room kept beside a thinking budget, and the budget each reasoning effort gets.
 */

/** Output room when the client set none, and what is kept for the answer beside a thinking budget. */
export const DEFAULT_MAX_TOKENS = 4096;

/** Thinking budgets for OpenAI's reasoning efforts; `minimal` turns thinking off. */
export const thinkingBudgets = { low: 1024, medium: 4096, high: 16_384 } as const;
