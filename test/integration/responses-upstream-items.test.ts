import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeInProcess } from '../support/gateway-target.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * A native Responses upstream whose output holds something that is not an item (null, a string, a
 * number, a list, an object without a type) sent a response the gateway cannot rewrite, keep or
 * replay: the client gets the upstream's 502 (or, once a stream has begun, its error event), never
 * the gateway's own 500, and nothing broken is kept for the next turn to trip on.
 */
const NOT_ITEMS: readonly unknown[] = [null, 'text', 7, true, [], [{ type: 'message' }], {}, { type: 3 }];
const OWN_FAILURE = 'The server had an error while processing your request.';

const message = { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [] };
const responseWith = (output: unknown[]) => ({
  id: 'resp_up',
  object: 'response',
  created_at: 1_700_000_000,
  status: 'completed',
  model: 'upstream-model',
  output,
  usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 },
});

/** What the upstream answers next: a whole response, or the events of a stream. */
let next: { body: unknown } | { events: unknown[] } = { body: responseWith([message]) };

const run = describeInProcess('the fake upstream is a server of this process');

run('a native Responses upstream whose output is not a list of items', () => {
  let upstream: http.Server;
  let gateway: TestGateway;
  let key: string;

  beforeAll(async () => {
    upstream = http.createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        if ('body' in next) {
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(next.body));
          return;
        }
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const event of next.events) response.write(`data: ${JSON.stringify(event)}\n\n`);
        response.end();
      });
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    gateway = await startTestGateway();
    const created = await gateway.admin('PUT', '/admin/v1/channels/native-items', {
      type: 'openai',
      baseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
      models: ['items-model'],
    });
    expect(created.status).toBe(200);
    ({ key } = await gateway.createAccountWithKey());
  });

  afterAll(async () => {
    await gateway?.close();
    upstream?.closeAllConnections();
    upstream?.close();
  });

  const ask = (stream: boolean, previous?: string) =>
    fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'items-model', input: 'hi', stream, previous_response_id: previous }),
    });

  it('relays a response whose output is items, and chains from it', async () => {
    next = { body: responseWith([message]) };
    const first = await ask(false);
    const body = (await first.json()) as { id: string };
    expect(first.status).toBe(200);
    expect((await ask(false, body.id)).status).toBe(200);
  });

  it.each(NOT_ITEMS.map((value) => [JSON.stringify(value), value]))(
    'answers a whole response holding %s with a 502',
    async (_name, value) => {
      next = { body: responseWith([message, value]) };
      const response = await ask(false);
      const body = (await response.json()) as { error: { type: string; message: string } };
      expect(response.status).toBe(502);
      expect(body.error.message).not.toBe(OWN_FAILURE);
    },
  );

  it.each(NOT_ITEMS.map((value) => [JSON.stringify(value), value]))(
    'ends a stream whose finished response or item is %s with an error event, keeping nothing',
    async (_name, value) => {
      for (const events of [
        [
          { type: 'response.created', sequence_number: 0, response: responseWith([]) },
          { type: 'response.completed', sequence_number: 1, response: responseWith([value]) },
        ],
        [
          { type: 'response.created', sequence_number: 0, response: responseWith([]) },
          { type: 'response.output_item.done', sequence_number: 1, output_index: 0, item: value },
          { type: 'response.completed', sequence_number: 2, response: responseWith([message]) },
        ],
      ]) {
        next = { events };
        const response = await ask(true);
        const text = await response.text();
        const ids = [...text.matchAll(/"id":"(resp_[^"]+)"/g)].map((match) => match[1]!);
        expect(response.status).toBe(200);
        expect(text).toContain('"type":"error"');
        expect(text).not.toContain(OWN_FAILURE);
        expect(text).not.toContain('response.completed');
        // The turn was not kept: chaining from it is the client's 400, not a crash on a broken item.
        next = { body: responseWith([message]) };
        const chained = await ask(false, ids[0]);
        expect(chained.status).toBe(400);
      }
    },
  );
});
