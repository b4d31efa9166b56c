/**
 * Stands in for `@smithy/core/event-streams` in the bundles of groups whose clients never stream
 * events (see `eventStreamGroups` in `esbuild-options.ts`). The SDK's HTTP protocol imports it lazily,
 * only for an operation with an event-stream member; DynamoDB and Secrets Manager have none, so the
 * import is never made there. If it ever is, it fails loudly rather than decode nothing.
 */
const unavailable = (): never => {
  throw new Error('Event streams are not part of this function bundle: only the chat group talks to Bedrock.');
};

export class EventStreamSerde {
  constructor() {
    unavailable();
  }
}

export const eventStreamSerdeProvider = unavailable;
