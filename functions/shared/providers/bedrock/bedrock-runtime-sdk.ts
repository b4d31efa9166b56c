/**
 * The Bedrock Runtime client and the commands the gateway sends, in one module that is imported only
 * when a `bedrock` channel is called (`bedrock-client.ts`): most deployments never load it, and the
 * chat bundle carries it, with its event-stream decoding, as a separate chunk.
 */
export { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
