import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { anthropicMessagesPassThrough } from '../../functions/shared/streaming/pass-through-anthropic-messages.js';
import type { UpstreamResponse } from '../../functions/shared/upstream/upstream-http.js';

/** An upstream body that arrives in exactly these network chunks. */
const upstream = (...chunks: string[]): UpstreamResponse => ({
  status: 200,
  headers: { 'content-type': 'text/event-stream' },
  body: Readable.from(chunks.map((chunk) => Buffer.from(chunk))) as unknown as IncomingMessage,
});

const relay = async (...chunks: string[]) => {
  const stream = anthropicMessagesPassThrough(upstream(...chunks), {
    publicModel: 'public-model',
    idleMs: 1000,
    onUsage: () => undefined,
  });
  const sent: string[] = [];
  const failure = await new Promise<unknown>((resolve) =>
    stream.relay.start({ send: (text) => sent.push(text) > 0, end: () => resolve(undefined), fail: resolve }),
  );
  return { sent: sent.join(''), failure };
};

const event = (name: string, data: unknown) =>
  `event: ${name}\ndata: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
const start = event('message_start', {
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'up', content: [], usage: { input_tokens: 3 } },
});
const delta = event('content_block_delta', {
  type: 'content_block_delta',
  index: 0,
  delta: { type: 'text_delta', text: 'hi' },
});
const stop = event('message_stop', { type: 'message_stop' });

describe('the Anthropic Messages pass-through', () => {
  it('relays a whole stream, under the public model name', async () => {
    const { sent, failure } = await relay(start, delta, stop);
    expect(failure).toBeUndefined();
    expect(sent).toContain('"model":"public-model"');
    expect(sent).toContain(delta);
  });

  it.each([
    ['a relayed delta that is not one JSON object', event('content_block_delta', '{"type":"content_block_delta","ind')],
    ['a message_start whose message is not an object', event('message_start', { type: 'message_start', message: 5 })],
  ])('fails %s as the upstream’s broken answer, after the events before it', async (_kind, broken) => {
    const { sent, failure } = await relay(...(broken.includes('message_start') ? [broken] : [start, broken, stop]));
    expect(failure).toMatchObject({ status: 502, code: 'upstream_error' });
    expect(sent).not.toContain(broken);
  });
});
