import { upstreamStatusError, type UpstreamError } from '../../upstream/upstream-errors.js';
import type { UpstreamResponse } from '../../upstream/upstream-http.js';
import type { Channel } from '../../store/channels.js';
import { readErrorBody, retryAfterHeader } from '../upstream-json.js';
import { geminiErrorSchema } from './gemini-api.js';

/** Google's Gemini API (generateContent): `x-goog-api-key`, the model and method in the path. */
export const GEMINI_BASE_URL = 'https://generativelanguage.googleapis.com';

export const geminiHeaders = (channel: Channel): Record<string, string> => ({
  'content-type': 'application/json',
  ...(channel.apiKey ? { 'x-goog-api-key': channel.apiKey } : {}),
});

/** A Google error body, as the error the client gets. */
export const geminiStatusError = async (response: UpstreamResponse, idleMs: number): Promise<UpstreamError> => {
  const parsed = geminiErrorSchema().safeParse(await readErrorBody(response, idleMs));
  const error = parsed.success ? parsed.data.error : undefined;
  return upstreamStatusError(response.status, error?.message ?? undefined, {
    retryAfter: retryAfterHeader(response),
    code: error?.status ?? null,
  });
};
