import fc from 'fast-check';
import * as z from '../../functions/shared/schemas/zod.js';
import { sparseObjectParser } from '../../functions/shared/schemas/sparse-object.js';
import { chatCompletionRequestSchema } from '../../functions/shared/protocols/openai-chat/chat-completion-request.js';
import {
  anthropicCountTokensRequestSchema,
  anthropicMessagesRequestSchema,
} from '../../functions/shared/protocols/anthropic-messages/anthropic-messages-request.js';
import { responsesRequestSchema } from '../../functions/shared/protocols/openai-responses/responses-request.js';
import { geminiGenerateContentRequestSchema } from '../../functions/shared/protocols/gemini/gemini-generate-content-request.js';
import { embeddingsRequestSchema } from '../../functions/shared/schemas/embeddings-request.js';
import { imagesRequestSchema } from '../../functions/shared/schemas/images-request.js';
import { speechRequestSchema } from '../../functions/shared/schemas/speech-request.js';

/** What a parse tells: success and the value, or the issues in order. */
const outcome = (result: ReturnType<z.ZodMiniType['safeParse']>) =>
  result.success ? { success: true, data: result.data } : { success: false, issues: result.error.issues };

const requestSchemas = {
  chat: chatCompletionRequestSchema,
  messages: anthropicMessagesRequestSchema,
  countTokens: anthropicCountTokensRequestSchema,
  responses: responsesRequestSchema,
  gemini: geminiGenerateContentRequestSchema,
  embeddings: embeddingsRequestSchema,
  images: imagesRequestSchema,
  speech: speechRequestSchema,
};

/** Values that pass, fail, or are absent, for members a schema names and for others. */
const memberValue = fc.oneof(
  fc.constantFrom('text', 'user', 'auto', 'low', '', 'gpt-4.1', 'alloy', 'mp3'),
  fc.integer({ min: -3, max: 300 }),
  fc.double({ noNaN: true }),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(
    [{ role: 'user', content: 'hi' }],
    [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    [{ role: 'tool', content: 'x' }],
    [{ role: 'user', parts: [{ text: 'hi' }] }],
    { include_usage: true },
    { type: 'text' },
    ['a', 'b'],
    [],
  ),
  fc.jsonValue({ maxDepth: 2 }),
);

describe('a request body parsed with the members it holds', () => {
  it.each(Object.entries(requestSchemas))('gives what the whole %s schema gives', (_, schema) => {
    const whole = schema();
    const sparse = sparseObjectParser(whole);
    const names = Object.keys((whole as unknown as { _zod: { def: { shape: object } } })._zod.def.shape);
    const body = fc.dictionary(fc.constantFrom(...names, 'unknown_member', 'metadata'), memberValue, {
      maxKeys: 8,
    });
    fc.assert(
      fc.property(body, (input) => {
        expect(outcome(sparse(input))).toEqual(outcome(whole.safeParse(input)));
      }),
      { numRuns: 3_000 },
    );
  });

  it('keeps a required member and a default when the body leaves them out', () => {
    const schema = z.looseObject({
      model: z.string(),
      n: z._default(z.number(), 1),
      user: z.optional(z.string()),
    });
    const sparse = sparseObjectParser(schema);
    expect(outcome(sparse({ user: 'u' }))).toEqual(outcome(schema.safeParse({ user: 'u' })));
    expect(sparse({ model: 'm' })).toMatchObject({ success: true, data: { model: 'm', n: 1 } });
    expect(sparse({ model: 'm', extra: [1] })).toMatchObject({ success: true, data: { model: 'm', n: 1, extra: [1] } });
  });

  it('gives the whole parse past its key sets, and for a schema of more members than a key set holds', () => {
    const names = Array.from({ length: 40 }, (_, index) => `m${index}`);
    const wide = z.looseObject(Object.fromEntries(names.map((name) => [name, z.optional(z.number())])));
    const narrow = z.looseObject(Object.fromEntries(names.slice(0, 10).map((name) => [name, z.optional(z.number())])));
    const wideParse = sparseObjectParser(wide);
    const narrowParse = sparseObjectParser(narrow);
    // 1,024 key sets of the ten-member schema: four times what it keeps schemas for.
    for (let set = 0; set < 1024; set += 1) {
      const body = Object.fromEntries(
        names.slice(0, 10).flatMap((name, index) => (set & (1 << index) ? [[name, set % 3 === 0 ? 'x' : index]] : [])),
      );
      expect(outcome(narrowParse(body))).toEqual(outcome(narrow.safeParse(body)));
    }
    const wideBody = { m0: 1, m35: 'x', m39: 2 };
    expect(outcome(wideParse(wideBody))).toEqual(outcome(wide.safeParse(wideBody)));
  });

  it('parses bodies that are not objects, and schemas it cannot narrow, as they are', () => {
    const strict = z.strictObject({ a: z.optional(z.string()) });
    expect(outcome(sparseObjectParser(strict)({ b: 1 }))).toEqual(outcome(strict.safeParse({ b: 1 })));
    const chat = chatCompletionRequestSchema();
    for (const input of [[], 'text', null, 3]) {
      expect(outcome(sparseObjectParser(chat)(input))).toEqual(outcome(chat.safeParse(input)));
    }
  });
});
