import { routeStreamingByResource } from '../shared/middleware/route-by-resource.js';
import { chatCompletions } from './chat-completions.js';

/** The chat group's Lambda entry: the streaming conversation endpoints. */
export const handler = routeStreamingByResource(
  {
    '/v1/chat/completions': chatCompletions,
  },
  '/v1/chat/completions',
);
