/**
 * What the client opted into beyond its body, read from its headers: protocol versions and beta
 * features. Each provider forwards only what its upstream accepts; everything else is dropped there.
 */
export interface ClientOptions {
  /** Beta feature names (the Messages protocol's `anthropic-beta`), deduplicated, in the client's order. */
  readonly betas: readonly string[];
  /** The protocol version the client pinned (the Messages protocol's `anthropic-version`), when well-formed. */
  readonly version?: string;
}

export const noClientOptions: ClientOptions = { betas: [] };
