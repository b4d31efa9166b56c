import { validationError } from '../../functions/shared/middleware/validate-body.js';
import { chatCompletionRequestSchema } from '../../functions/shared/protocols/openai-chat/chat-completion-request.js';

/**
 * A refused body's 400 says in English what is wrong with which field. zod's small build loads no
 * locale by itself (without one every issue reads "Invalid input"), so these hold the gateway's zod
 * module to setting it, whichever schema module a function loads first.
 */
const refusalOf = (fields: Record<string, unknown>) => {
  const body = { model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }], ...fields };
  const result = chatCompletionRequestSchema().safeParse(body);
  if (result.success) throw new Error('the body was accepted');
  const error = validationError(result.error, body);
  return { message: error.message, param: error.param };
};

describe('validation messages', () => {
  it.each([
    [{ temperature: 5 }, 'temperature', 'Too big: expected number to be <=2'],
    [{ temperature: 'hot' }, 'temperature', 'Invalid input: expected number, received string'],
    [{ n: 1.5 }, 'n', 'Invalid input: expected int, received number'],
    [{ messages: [] }, 'messages', 'Too small: expected array to have >=1 items'],
    [{ model: '' }, 'model', 'Too small: expected string to have >=1 characters'],
    [
      { reasoning_effort: 'max' },
      'reasoning_effort',
      'Invalid option: expected one of "minimal"|"low"|"medium"|"high"',
    ],
  ])('%j is refused in English, naming %s', (fields, param, reason) => {
    expect(refusalOf(fields)).toEqual({ message: `Invalid value for '${param}': ${reason}`, param });
  });

  it('names the deepest field of a union that matched no branch', () => {
    const image = { type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'huge' } };
    expect(refusalOf({ messages: [{ role: 'user', content: [image] }] })).toEqual({
      message: `Invalid value for 'messages[0].content[0].image_url.detail': Invalid option: expected one of "low"|"high"|"auto"`,
      param: 'messages[0].content[0].image_url.detail',
    });
  });
});
