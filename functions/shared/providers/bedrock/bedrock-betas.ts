/**
 * The Anthropic betas that Claude on Bedrock accepts (AWS's "Anthropic Claude Messages API" page),
 * sent in the body as `anthropic_beta`. Bedrock refuses any other name ("invalid beta flag"), so this
 * is an allow-list; a client's first-party name for a feature Bedrock names differently is renamed.
 */
const accepted: ReadonlySet<string> = new Set([
  'computer-use-2024-10-22',
  'computer-use-2025-01-24',
  'computer-use-2025-11-24',
  'token-efficient-tools-2025-02-19',
  'interleaved-thinking-2025-05-14',
  'output-128k-2025-02-19',
  'dev-full-thinking-2025-05-14',
  'context-1m-2025-08-07',
  'context-management-2025-06-27',
  'effort-2025-11-24',
  'tool-search-tool-2025-10-19',
  'tool-examples-2025-10-29',
]);

/** First-party names → Bedrock's names for the same feature. */
const renamed: Readonly<Record<string, string>> = {
  'advanced-tool-use-2025-11-20': 'tool-search-tool-2025-10-19',
};

export const bedrockChannelBetas = (betas: readonly string[]): string[] => [
  ...new Set(betas.map((beta) => renamed[beta] ?? beta).filter((beta) => accepted.has(beta))),
];
