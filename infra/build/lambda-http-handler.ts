/**
 * Stands in for `@smithy/node-http-handler` in the Lambda bundles (see `moduleAliases` in
 * `esbuild-options.ts`): the HTTP/1.1 handler itself, without the HTTP/2 one (about 7 KB of the chat
 * bundle). The DynamoDB and Secrets Manager clients default to HTTP/1.1. Only the Bedrock Runtime
 * client defaults to HTTP/2, through `NodeHttp2Handler.create(config.requestHandler)`, and
 * `bedrockClient` always passes its own `NodeHttpHandler`, which `create` returns as it is.
 */
// The package has no `exports` map and no declarations beside `dist-es`, so its HTTP/1.1 module is
// reached by file path: an import of the package name would be aliased back to this file.
// prettier-ignore
// @ts-expect-error -- no declaration file next to the `dist-es` build; only esbuild reads this import.
export { DEFAULT_REQUEST_TIMEOUT, NodeHttpHandler } from '../../node_modules/@smithy/node-http-handler/dist-es/node-http-handler.js';
export { streamCollector } from '@smithy/core/serde';

/** What `NodeHttp2Handler.create` does with a handler instance; anything else would need HTTP/2. */
export const NodeHttp2Handler = {
  create<Handler extends { handle: unknown }>(instanceOrOptions?: Handler | unknown): Handler {
    const candidate = instanceOrOptions as Handler | undefined;
    if (typeof candidate?.handle === 'function') return candidate;
    throw new Error(
      'The HTTP/2 request handler is not part of the Lambda bundle: pass a NodeHttpHandler as requestHandler.',
    );
  },
};
