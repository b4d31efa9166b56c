import { routeStreamingByResource } from '../shared/middleware/route-by-resource.js';
import { chatCompletions } from './chat-completions.js';
import { countTokens } from './count-tokens.js';
import { geminiGenerateContent } from './gemini-generate-content.js';
import { messages } from './messages.js';
import { responses } from './responses.js';

/** The chat group's Lambda entry: the streaming conversation endpoints. */
export const handler = routeStreamingByResource(
  {
    '/v1/chat/completions': chatCompletions,
    '/v1/messages': messages,
    '/v1/messages/count_tokens': countTokens,
    '/v1beta/models/{modelAction}': geminiGenerateContent,
    '/v1/models/{modelAction}': geminiGenerateContent,
    '/v1/responses': responses,
  },
  '/v1/chat/completions',
);
