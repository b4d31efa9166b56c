import { errorFormatForPath } from '../../functions/shared/http/error-format.js';

/**
 * Whether a body is the error envelope the path's clients parse (DESIGN §3.4): OpenAI's
 * `{error:{message, type, param, code}}`, Anthropic's `{type:"error", error:{type, message}}` on
 * `/v1/messages*`, Google's `{error:{code, message, status}}` on Gemini-style paths.
 */
export const isEnvelopeOfPath = (path: string, status: number, body: any): boolean => {
  const error = body?.error;
  if (error === null || typeof error !== 'object') return false;
  switch (errorFormatForPath(path)) {
    case 'anthropic':
      return body.type === 'error' && typeof error.type === 'string' && typeof error.message === 'string';
    case 'gemini':
      return error.code === status && typeof error.message === 'string' && typeof error.status === 'string';
    case 'openai':
      return (
        typeof error.message === 'string' &&
        typeof error.type === 'string' &&
        'param' in error &&
        (error.code === null || typeof error.code === 'string')
      );
  }
};

/** The path part of a request target, decoded where it can be, as the gateway reads it. */
export const pathOfTarget = (target: string): string => {
  const path = target.split(/[?#]/, 1)[0]!;
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
};
