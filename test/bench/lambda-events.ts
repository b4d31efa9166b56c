/**
 * The API Gateway events the Lambda bench hands each function group: one representative request of
 * the group, and for the chat function a stream and a 1 MB prompt as well.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { FunctionGroup } from '../../functions/shared/routes.js';
import { proxyEvent } from '../support/proxy-event.js';
import { chatBody } from './bench-setup.js';

export interface GroupEvents {
  /** The group's everyday request, answered whole. */
  readonly whole: APIGatewayProxyEvent;
  /** The status it is answered with; any other is counted as an error. */
  readonly status: number;
  /** A stream from an upstream whose chunks come over time (the chat function only). */
  readonly stream?: APIGatewayProxyEvent;
  /** A request with a 1 MB prompt (the chat function only). */
  readonly large?: APIGatewayProxyEvent;
}

export interface BenchModels {
  /** Answered at once. */
  readonly quick: string;
  /** Streamed in 20 chunks that come some milliseconds apart. */
  readonly paced: string;
}

let sequence = 0;

const event = (method: string, resource: string, key: string, body?: string): APIGatewayProxyEvent =>
  proxyEvent({
    resource,
    path: resource,
    httpMethod: method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body ?? null,
    requestContext: {
      requestId: `lambda-bench-${(sequence += 1)}`,
      identity: { sourceIp: '127.0.0.1' },
      stage: 'v1',
    },
  } as unknown as Partial<APIGatewayProxyEvent>);

/** Characters of the large prompt: 1 MB of words, as a pasted document is. */
const LARGE_PROMPT_BYTES = 1024 * 1024;

export const largePrompt = (): string => {
  const words = 'the gateway measures what a large prompt costs on each memory size ';
  return words.repeat(Math.ceil(LARGE_PROMPT_BYTES / words.length)).slice(0, LARGE_PROMPT_BYTES);
};

/** The events for `group`, authorized by `userKey` (or `adminKey` for the admin API). */
export const groupEvents = (
  group: FunctionGroup,
  userKey: string,
  adminKey: string,
  models: BenchModels,
): GroupEvents => {
  const json = (value: unknown) => JSON.stringify(value);
  switch (group) {
    case 'chat':
      return {
        whole: event('POST', '/v1/chat/completions', userKey, chatBody(false, models.quick)),
        status: 200,
        stream: event('POST', '/v1/chat/completions', userKey, chatBody(true, models.paced)),
        // A pasted document and a short question about it: the fake upstream echoes the last user
        // message, so the answer is short, as an answer about a long document is.
        large: event(
          'POST',
          '/v1/chat/completions',
          userKey,
          json({
            model: models.quick,
            messages: [
              { role: 'user', content: largePrompt() },
              { role: 'user', content: 'What does the document above say, in one line?' },
            ],
          }),
        ),
      };
    case 'models':
      return { whole: event('GET', '/v1/models', userKey), status: 200 };
    case 'embeddings':
      return {
        whole: event(
          'POST',
          '/v1/embeddings',
          userKey,
          json({ model: models.quick, input: 'How fast is this gateway?' }),
        ),
        status: 200,
      };
    case 'images':
      return {
        whole: event(
          'POST',
          '/v1/images/generations',
          userKey,
          json({ model: models.quick, prompt: 'a fast gateway' }),
        ),
        status: 200,
      };
    case 'audio':
      return {
        whole: event(
          'POST',
          '/v1/audio/speech',
          userKey,
          json({ model: models.quick, input: 'Hello', voice: 'alloy' }),
        ),
        status: 200,
      };
    case 'admin':
      return { whole: event('GET', '/admin/v1/channels', adminKey), status: 200 };
    case 'console':
      return { whole: event('GET', '/console/api/config', userKey), status: 200 };
    case 'fallback':
      return { whole: event('GET', '/health', userKey), status: 200 };
  }
};
