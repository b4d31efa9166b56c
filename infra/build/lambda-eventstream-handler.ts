/**
 * Stands in for `@aws-sdk/eventstream-handler-node` in the Lambda bundles (see `moduleAliases` in
 * `esbuild-options.ts`). The Bedrock Runtime client builds its payload handler in the constructor,
 * but only a command that streams its *request* as events (`InvokeModelWithBidirectionalStream`)
 * adds the middleware that calls it. The gateway sends `Converse` and `ConverseStream`, whose
 * requests are plain JSON (the answer stream is decoded by `@smithy/core/event-streams`, which stays),
 * so the handler is never called; if a bidirectional command is ever bundled, it fails loudly.
 */
interface EventStreamPayloadHandler {
  handle(): Promise<never>;
}

export const eventStreamPayloadHandlerProvider = (): EventStreamPayloadHandler => ({
  handle: async () => {
    throw new Error('Event-stream request payloads (bidirectional Bedrock streams) are not part of the Lambda bundle.');
  },
});
