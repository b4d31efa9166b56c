import type { ErrorFormat } from './error-response.js';

/** `/v1/models/{model}:action`: the Gemini-style methods the `@google/genai` SDK calls under `/v1`. */
const GEMINI_METHOD_UNDER_V1 = /^\/v1\/models\/[^/]*:/;

/**
 * The envelope a path's clients parse (DESIGN §3.4): Anthropic's on `/v1/messages` and below, Google's
 * on the Gemini-style paths, OpenAI's everywhere else. Chosen from the path alone, so that answers given
 * before any route is known (unknown URL, wrong method, body too large, malformed request) match it too.
 */
export const errorFormatForPath = (path: string): ErrorFormat => {
  if (path === '/v1/messages' || path.startsWith('/v1/messages/')) return 'anthropic';
  if (path === '/v1beta' || path.startsWith('/v1beta/') || GEMINI_METHOD_UNDER_V1.test(path)) return 'gemini';
  return 'openai';
};

/**
 * The envelope for a request target as it arrives (`/v1/models/x%3AgenerateContent?alt=sse`), or a
 * REST API's still-encoded `event.path`: its path, percent-decoded as the routes see it, or as it
 * stands when its encoding is malformed. Every request picks its envelope here, and nearly every
 * path has neither a query nor an escape: those are used as they are.
 */
export const errorFormatForTarget = (target: string): ErrorFormat => {
  const end = target.search(/[?#]/);
  const path = (end < 0 ? target : target.slice(0, end)) || '/';
  if (!path.includes('%')) return errorFormatForPath(path);
  try {
    return errorFormatForPath(decodeURIComponent(path));
  } catch {
    return errorFormatForPath(path);
  }
};
