import { errorFormatForPath, errorFormatForTarget } from '../../functions/shared/http/error-format.js';

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

describe('the error envelope chosen by request target', () => {
  it.each([
    ['/v1/models/demo-1%3AgenerateContent', 'gemini'],
    ['/v1/models/demo-1%3astreamGenerateContent?alt=sse', 'gemini'],
    ['/v1/%6Dessages/count_tokens', 'anthropic'],
    ['/v1beta/models/%zz', 'gemini'],
    ['/v1/messages%zz?x=%3A', 'openai'],
    ['/v1/models?name=x:generateContent', 'openai'],
    ['/v1/models/x#:generateContent', 'openai'],
    ['', 'openai'],
  ])('%s is answered as its decoded path is: %s', (target, format) =>
    expect(errorFormatForTarget(target)).toBe(format),
  );
});
