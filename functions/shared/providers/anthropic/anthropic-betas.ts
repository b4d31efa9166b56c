/**
 * The betas an `anthropic` channel forwards. Anthropic's own API accepts every beta it publishes and
 * answers an unknown one with a clear 400, so names pass through; what is dropped are the betas that
 * describe the client's own sign-in (Claude Code's `oauth-…` with a subscription token), since the
 * channel calls with its API key and Anthropic refuses that combination.
 */
const credentialBetas = /^oauth-/;

export const anthropicChannelBetas = (betas: readonly string[]): string[] =>
  betas.filter((beta) => !credentialBetas.test(beta));
