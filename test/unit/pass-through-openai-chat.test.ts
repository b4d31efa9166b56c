import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { TokenUsage } from '../../functions/shared/accounting/token-usage.js';
import { openAiChatPassThrough } from '../../functions/shared/streaming/pass-through-openai-chat.js';
import type { UpstreamResponse } from '../../functions/shared/upstream/upstream-http.js';

/** An upstream body that arrives in exactly these network chunks. */
const upstream = (...chunks: string[]): UpstreamResponse => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body: Readable.from(chunks.map((chunk) => Buffer.from(chunk))) as unknown as IncomingMessage,
});

const relay = async (includeUsage: boolean, ...chunks: string[]) => {
  const usages: TokenUsage[] = [];
  const stream = openAiChatPassThrough(upstream(...chunks), {
    publicModel: 'public-model',
    includeUsage,
    idleMs: 1000,
    onUsage: (usage) => usages.push(usage),
  });
  const sent: string[] = [];
  const failure = await new Promise<unknown>((resolve) =>
    stream.relay.start({
      send: (text) => sent.push(text) > 0,
      end: () => resolve(undefined),
      fail: resolve,
    }),
  );
  return { sent, usages, failure, text: stream.completionText() };
};

const dataOf = (sent: string[]) =>
  sent
    .join('')
    .split('\n\n')
    .filter(Boolean)
    .map((event) => JSON.parse(event.replace(/^data: /, '')) as Record<string, unknown>);

describe('the OpenAI chat pass-through', () => {
  it('renames the model member only, never text that merely looks like one', async () => {
    const quoting = '{"id":"c","choices":[{"index":0,"delta":{"content":"say \\"model\\":\\"x\\""}}],"model":"up-1"}';
    const { sent } = await relay(false, `data: ${quoting}\n\n`, 'data: [DONE]\n\n');
    expect(dataOf(sent)).toEqual([
      { id: 'c', choices: [{ index: 0, delta: { content: 'say "model":"x"' } }], model: 'public-model' },
    ]);
  });

  it('accepts the spacing other servers serialise with, and drops usage null for a client that did not ask', async () => {
    const spaced =
      '{"id": "c", "model" : "up-1", "choices": [{"index": 0, "delta": {"content": "hi"}}], "usage": null}';
    const first = '{"usage": null, "id": "d", "model": "up-1", "choices": []}';
    const { sent } = await relay(false, `data: ${spaced}\n\ndata: ${first}\n\n`, 'data: [DONE]\n\n');
    const chunks = dataOf(sent);
    expect(chunks.map((chunk) => chunk.model)).toEqual(['public-model', 'public-model']);
    for (const chunk of chunks) expect(chunk).not.toHaveProperty('usage');
  });

  it('reads usage from the usage chunk, and forwards it only to a client that asked', async () => {
    const usage = 'data: {"id":"c","model":"up-1","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":4}}\n\n';
    const answer = 'data: {"id":"c","model":"up-1","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n';
    const asked = await relay(true, answer, usage, 'data: [DONE]\n\n');
    expect(asked.usages).toEqual([expect.objectContaining({ promptTokens: 3, completionTokens: 4 })]);
    expect(dataOf(asked.sent).at(-1)).toMatchObject({ model: 'public-model', usage: { prompt_tokens: 3 } });
    const notAsked = await relay(false, answer, usage, 'data: [DONE]\n\n');
    expect(notAsked.usages).toHaveLength(1);
    expect(dataOf(notAsked.sent)).toHaveLength(1);
  });

  it('forwards a usage chunk to a client that asked as sent, renamed only; one without a model gets one', async () => {
    const spaced = '{"id": "c", "model": "up-1", "choices": [], "usage": {"prompt_tokens": 3}, "x_extra": [1, 2]}';
    const unnamed = '{"id":"c","choices":[],"usage":{"completion_tokens":4}}';
    const { sent, usages } = await relay(true, `data: ${spaced}\n\n`, `data: ${unnamed}\n\n`, 'data: [DONE]\n\n');
    expect(sent.join('')).toBe(
      `data: ${spaced.replace('"up-1"', '"public-model"')}\n\n` +
        `data: ${JSON.stringify({ ...(JSON.parse(unnamed) as object), model: 'public-model' })}\n\n`,
    );
    expect(usages).toEqual([
      expect.objectContaining({ promptTokens: 3 }),
      expect.objectContaining({ completionTokens: 4 }),
    ]);
  });

  it.each([
    ['a count as text', '{"prompt_tokens":"3"}'],
    ['a count as an object', '{"completion_tokens":{"n":4}}'],
    ['details that are not an object', '{"prompt_tokens":3,"prompt_tokens_details":7}'],
    ['a detail count as text', '{"completion_tokens_details":{"reasoning_tokens":"1"}}'],
  ])('fails a usage chunk whose usage is not token counts (%s), after the events before it', async (_kind, usage) => {
    const answer = 'data: {"id":"c","model":"up-1","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n';
    const counted = `data: {"id":"c","model":"up-1","choices":[],"usage":${usage}}\n\n`;
    for (const includeUsage of [true, false]) {
      const { sent, usages, failure } = await relay(includeUsage, answer, counted, 'data: [DONE]\n\n');
      expect(dataOf(sent)).toHaveLength(1);
      expect(usages).toEqual([]);
      expect(String((failure as Error).message)).toMatch(/usage/);
    }
  });

  it('relays chunks whose text only mentions an error or a usage, on the fast path as on the parsed one', async () => {
    const chunks = [
      '{"id":"c","model":"up-1","choices":[{"index":0,"delta":{"content":"\\"error\\": none"}}],"usage":null}',
      '{"id":"c","model":"up-1","choices":[{"index":0,"delta":{"content":"\\"usage\\":{"}}],"usage":null}',
    ];
    for (const includeUsage of [true, false]) {
      const { sent, failure } = await relay(
        includeUsage,
        ...chunks.map((chunk) => `data: ${chunk}\n\n`),
        'data: [DONE]\n\n',
      );
      expect(failure).toBeUndefined();
      expect(dataOf(sent)).toEqual(
        chunks.map((chunk) => {
          const { usage, ...rest } = JSON.parse(chunk) as Record<string, unknown>;
          return { ...rest, model: 'public-model', ...(includeUsage ? { usage } : {}) };
        }),
      );
    }
  });

  it('sends what arrived before an error event, then fails with the upstream message', async () => {
    const answer = 'data: {"id":"c","model":"up-1","choices":[{"index":0,"delta":{"content":"partial"}}]}\n\n';
    const { sent, failure, text } = await relay(
      false,
      answer + 'data: {"error":{"message":"overloaded","type":"server_error"}}\n\n',
    );
    expect(dataOf(sent)).toHaveLength(1);
    expect(String((failure as Error).message)).toContain('overloaded');
    expect(text).toBe('partial');
  });

  it('keeps events split across network chunks whole, and fails a stream that ends before [DONE]', async () => {
    const event = 'data: {"id":"c","model":"up-1","choices":[{"index":0,"delta":{"content":"split"}}]}\n\n';
    const { sent, failure } = await relay(false, event.slice(0, 20), event.slice(20, 50), event.slice(50));
    expect(dataOf(sent)).toEqual([expect.objectContaining({ model: 'public-model' })]);
    expect(String((failure as Error).message)).toMatch(/before \[DONE\]/);
  });

  it.each([
    ['markup', '<html>busy</html>'],
    ['an object cut short', '{"id":"c","model":"up-1","choices":[{"index":0,"delta":{"content":"hel'],
    ['an object with text after it', '{"id":"c","model":"up-1","choices":[]} trailing'],
  ])('fails an event that is not one JSON object (%s), after the events before it', async (_kind, data) => {
    const answer = 'data: {"id":"c","model":"up-1","choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n';
    const { sent, failure } = await relay(false, answer, `data: ${data}\n\n`, 'data: [DONE]\n\n');
    expect(dataOf(sent)).toHaveLength(1);
    expect(String((failure as Error).message)).toMatch(/not JSON/);
  });
});
