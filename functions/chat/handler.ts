import { onFirstRequest } from '../shared/middleware/on-first-request.js';
import { routeStreamingByResource } from '../shared/middleware/route-by-resource.js';
import { chatCompletions } from './chat-completions.js';

/**
 * The chat group's Lambda entry: the streaming conversation endpoints. Chat completions, the most
 * asked for, load with the function; each other client protocol (its schema and translation) loads
 * in the instances that serve it, on its first request.
 */
export const handler = routeStreamingByResource(
  {
    '/v1/chat/completions': chatCompletions,
    '/v1/messages': onFirstRequest(async () => (await import('./messages.js')).messages),
    '/v1/messages/count_tokens': onFirstRequest(async () => (await import('./count-tokens.js')).countTokens),
    '/v1beta/models/{modelAction}': onFirstRequest(
      async () => (await import('./gemini-generate-content.js')).geminiGenerateContent,
    ),
    '/v1/models/{modelAction}': onFirstRequest(
      async () => (await import('./gemini-generate-content.js')).geminiGenerateContent,
    ),
    '/v1/responses': onFirstRequest(async () => (await import('./responses.js')).responses),
    '/v1/responses/{id}': onFirstRequest(async () => (await import('./responses-stored.js')).storedResponse),
    '/v1/responses/{id}/input_items': onFirstRequest(
      async () => (await import('./responses-stored.js')).responseInputItems,
    ),
  },
  '/v1/chat/completions',
);
