import { errorFormatForPath } from '../../functions/shared/http/error-format.js';

describe('the error envelope chosen by path', () => {
  it.each(['/v1/messages', '/v1/messages/', '/v1/messages/count_tokens', '/v1/messages/unknown/deeper'])(
    "is Anthropic's on %s",
    (path) => expect(errorFormatForPath(path)).toBe('anthropic'),
  );

  it.each([
    '/v1beta',
    '/v1beta/models',
    '/v1beta/models/demo-1:generateContent',
    '/v1beta/unknown',
    '/v1/models/demo-1:streamGenerateContent',
  ])("is Google's on %s", (path) => expect(errorFormatForPath(path)).toBe('gemini'));

  it.each([
    '/',
    '/v1/models',
    '/v1/models/gpt-4o',
    '/v1/chat/completions',
    '/v1/messagesx',
    '/admin/v1/keys',
    '/v1beta2',
  ])("is OpenAI's on %s", (path) => expect(errorFormatForPath(path)).toBe('openai'));
});
