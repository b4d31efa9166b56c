import { bedrockExceptionFrame } from './bedrock-wire.js';

/**
 * Error events that quote an echo of the request, one per upstream wire, named so that a fake in
 * another process can build them too: the format each wire's stream parser reads.
 */
export type EchoEventFormat = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini' | 'bedrock';

export const ECHO_EVENT_FORMATS: ReadonlySet<string> = new Set([
  'openai-chat',
  'openai-responses',
  'anthropic',
  'gemini',
  'bedrock',
]);

export const echoEvent = (format: EchoEventFormat, echo: string): string | Uint8Array => {
  switch (format) {
    case 'openai-chat':
      return `data: ${JSON.stringify({ error: { message: echo, type: echo, param: echo, code: null } })}\n\n`;
    case 'openai-responses':
      return `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_error', message: echo, param: echo, sequence_number: 2 })}\n\n`;
    case 'anthropic':
      return `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: echo } })}\n\n`;
    case 'gemini':
      return `data: ${JSON.stringify({ error: { code: 500, message: echo, status: 'INTERNAL' } })}\n\n`;
    case 'bedrock':
      return bedrockExceptionFrame('modelStreamErrorException', echo);
  }
};
