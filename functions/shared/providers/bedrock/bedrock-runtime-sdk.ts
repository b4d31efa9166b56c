/**
 * The Bedrock Runtime client and the commands the gateway sends, in one module that is imported only
 * when a `bedrock` channel is called (`bedrock-client.ts`): most deployments never load it, and the
 * chat bundle carries it, with its event-stream decoding, as a separate chunk.
 * The SDK parses Bedrock's answers with the global `JSON.parse`: guarded from here on (`parse-json.ts`).
 */
import { guardGlobalJsonParse } from '../../http/parse-json.js';

guardGlobalJsonParse();

export { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
