import { Readable, Writable } from 'node:stream';
import { setFlagsFromString, getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { TokenUsage } from '../../functions/shared/accounting/token-usage.js';
import type { Principal } from '../../functions/shared/auth/principal.js';
import type { CatalogModel } from '../../functions/shared/catalog/model-catalog.js';
import { json } from '../../functions/shared/http/response.js';
import { gatewayHandler, type GatewayRequest } from '../../functions/shared/middleware/gateway-handler.js';
import { startMeter } from '../../functions/shared/middleware/request-meter.js';
import { pumpInto } from '../../functions/shared/middleware/streamed-execution.js';
import { usagePut } from '../../functions/shared/accounting/usage-records.js';
import { putInBatch } from '../../functions/shared/store/batched-puts.js';
import { storeRequestHandler } from '../../functions/shared/store/connection.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { useInMemoryStore } from '../support/in-memory-store.js';
import type * as z from '../../functions/shared/schemas/zod.js';
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
import { buildProxyEvent } from '../../infra/local/proxy-event.js';
import { parseRequestTarget } from '../../infra/local/request-target.js';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LocalResponseStream } from '../../infra/local/lambda-streaming.js';
import { RequestTrace } from '../../functions/shared/observability/request-trace.js';
import { createAnthropicStreamTranslator } from '../../functions/shared/providers/anthropic/anthropic-stream.js';
import { createBedrockStreamTranslator } from '../../functions/shared/providers/bedrock/bedrock-stream.js';
import { lambdaContextStub, proxyEvent } from '../support/proxy-event.js';
import { usageRecordWith } from '../support/usage-record.js';

/**
 * What a request made must die young once the request is over: V8's young collections copy whatever
 * they find alive, and promote it if it is still alive at the next. Some shapes of code keep a request
 * alive past its end for young collections alone (an object literal whose getter is a new closure gets
 * a hidden class of its own, held in the old generation with the closure and all it reaches; a closure
 * made in a class constructor did the same), and then every request's state was copied and promoted,
 * for a full collection to free. Measured here as the old generation's growth over young collections.
 */

useInMemoryStore();

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'minor' | 'major'; execution?: 'sync' }) => void;

const oldSpaceUsed = () => getHeapSpaceStatistics().find((space) => space.space_name === 'old_space')!.space_used_size;

/** A string of `size` characters made fresh, so that only what reaches it keeps it. */
const freshText = (size: number) => `${Math.random()}`.padEnd(size, 'x');

/**
 * Bytes the old generation grew by, per call, over `count` calls of `call` with young collections
 * after each batch: what a call left reachable only through the old generation is promoted by them.
 */
const promotedPerCall = async (call: (index: number) => Promise<unknown>, count: number): Promise<number> => {
  for (let index = 0; index < count; index += 1) await call(index);
  gc({ type: 'major', execution: 'sync' });
  gc({ type: 'major', execution: 'sync' });
  const before = oldSpaceUsed();
  for (let index = 0; index < count; index += 1) {
    await call(index);
    if (index % 25 === 24) {
      await new Promise((resolve) => setImmediate(resolve));
      gc({ type: 'minor', execution: 'sync' });
      gc({ type: 'minor', execution: 'sync' });
    }
  }
  return (oldSpaceUsed() - before) / count;
};

/** Each call below reaches fresh texts this long, so that what it keeps past its end weighs. */
const TEXT = 8_000;
/** Some times what a call leaves in the old generation now (0–170 bytes over the baseline), a fraction of what one kept past its end did (1.1–2.2 KB). */
const BOUND = 500;
const CALLS = 400;

describe('what a request makes dies young', () => {
  /**
   * What a call that keeps nothing leaves, allocating as much: the old generation also takes in what
   * else the process does meanwhile (code and feedback, in a test worker the leftovers of the files it
   * ran before), and the figures below are read above it.
   */
  let baseline = 0;
  beforeAll(async () => {
    baseline = await promotedPerCall(async () => ({ note: freshText(TEXT) }).note.length, CALLS);
  });
  /**
   * The least of three readings: what a call keeps shows in each, while the old generation's other
   * growth (code, feedback, a busy machine's timing) comes in bursts that can fill one of them.
   */
  const keptPerCall = async (call: (index: number) => Promise<unknown>): Promise<number> => {
    const readings: number[] = [];
    for (let reading = 0; reading < 3; reading += 1) readings.push(await promotedPerCall(call, CALLS));
    return Math.min(...readings) - baseline;
  };

  it('an invocation of a handler, and the request it gives the handler', async () => {
    const handle = async (request: GatewayRequest<unknown>) => {
      request.defer(Promise.resolve());
      return json(200, { seen: (request.body as { prompt: string }).prompt.length });
    };
    const buffered = gatewayHandler({ auth: false, optionalJsonBody: true }, handle) as unknown as (
      event: unknown,
      context: unknown,
    ) => Promise<unknown>;
    // The text in a header too: the handler's state holds the headers to the end.
    const event = () =>
      proxyEvent({ headers: { 'x-note': freshText(TEXT) }, body: JSON.stringify({ prompt: freshText(TEXT) }) });

    expect(await keptPerCall(() => buffered(event(), lambdaContextStub()))).toBeLessThan(BOUND);
    // Streamed invocations take the same request; a Node writable of their own (the response stream)
    // keeps some hundreds of bytes of each stream past young collections, more than this could tell apart.
  });

  it("a request's meter", async () => {
    const model = { id: 'young-model', settings: undefined } as unknown as CatalogModel;
    const principal = { keyId: 'key_young', accountId: 'acct_young' } as Principal;
    const meterOf = async () => {
      const request = {
        requestId: 'req-young',
        principal,
        startedAt: Date.now(),
        trace: new RequestTrace(),
        body: { prompt: freshText(TEXT) },
        defer: () => undefined,
      } as unknown as GatewayRequest<unknown>;
      const meter = startMeter(request, model, 'chat', false);
      meter.usage({ promptTokens: 1, completionTokens: 1, totalTokens: 2 } as TokenUsage);
      return meter.reported;
    };
    expect(await keptPerCall(meterOf)).toBeLessThan(BOUND);
  });

  it("a relayed stream's translator", async () => {
    const anthropic = async () => {
      const translate = createAnthropicStreamTranslator(1);
      translate({
        type: 'message_start',
        message: { id: freshText(TEXT), model: 'm', usage: { input_tokens: 1, output_tokens: 0 } },
      } as never);
      translate({ type: 'message_stop' } as never);
      return translate.done;
    };
    const bedrock = async () => {
      const translate = createBedrockStreamTranslator({ id: freshText(TEXT), model: 'm' });
      translate.push({ messageStop: { stopReason: 'end_turn' } } as never);
      return translate.done;
    };
    expect(await keptPerCall(anthropic)).toBeLessThan(BOUND);
    expect(await keptPerCall(bedrock)).toBeLessThan(BOUND);
  });

  it("a usage record's text, which waits for its batch, weighs about its length", () => {
    const record = (index: number) =>
      usageRecordWith({
        requestId: `req-${index}-${Math.random()}`,
        accountId: 'acct_young',
        promptTokens: index,
        cost: 0.000025,
      });
    gc({ type: 'major', execution: 'sync' });
    const before = oldSpaceUsed();
    const waiting = Array.from({ length: CALLS }, (_, index) => usagePut(record(index)).item);
    gc({ type: 'minor', execution: 'sync' });
    gc({ type: 'minor', execution: 'sync' });
    const length = waiting.reduce((sum, text) => sum + text.length, 0) / waiting.length;
    // A text added up piece by piece stayed a tree of its pieces, four to five times its length; a flat
    // one reads about 1.15 times it here, and up to 2.4 times on a CI machine busy with other suites.
    expect((oldSpaceUsed() - before) / waiting.length - baseline).toBeLessThan(3 * length + 100);
  });

  it("the local runtime's event of a request", async () => {
    const eventOf = async () => {
      const event = buildProxyEvent({
        request: {
          method: 'POST',
          httpVersion: '1.1',
          rawHeaders: ['x-note', freshText(TEXT), 'content-type', 'application/json'],
          headers: { 'content-type': 'application/json' },
          socket: { remoteAddress: '127.0.0.1' },
        } as unknown as IncomingMessage,
        target: parseRequestTarget('/v1/chat/completions'),
        body: Buffer.from('{}'),
        resource: '/v1/chat/completions',
        pathParameters: null,
        requestId: 'req-young',
      });
      return event.headers['x-note']?.length;
    };
    expect(await keptPerCall(eventOf)).toBeLessThan(BOUND);
  });

  it('a put waiting for its batch keeps its text, not the item it was made from', async () => {
    // The store's wire held until released, and answered without reading what was sent.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const handler = storeRequestHandler() as unknown as { handle: (...args: unknown[]) => Promise<unknown> };
    const send = handler.handle;
    handler.handle = async () => {
      await held;
      const body = Buffer.from('{}');
      const headers = { 'content-type': 'application/x-amz-json-1.0', 'content-length': String(body.length) };
      return { response: { statusCode: 200, headers, body: Readable.from([body]) } };
    };
    const stop = () => {
      handler.handle = send;
    };
    try {
      gc({ type: 'major', execution: 'sync' });
      const before = oldSpaceUsed();
      const puts = Array.from({ length: CALLS }, (_, index) =>
        putInBatch({
          table: physicalTableName('usage'),
          item: { id: `item-${index}-${Math.random()}`, note: freshText(TEXT) },
          keyNames: ['id'],
        }),
      );
      await new Promise((resolve) => setImmediate(resolve));
      gc({ type: 'minor', execution: 'sync' });
      gc({ type: 'minor', execution: 'sync' });
      const kept = (oldSpaceUsed() - before) / CALLS - baseline;
      release();
      await Promise.all(puts);
      // The text holds the note once; the item would hold it again.
      expect(kept).toBeLessThan(1.5 * TEXT);
    } finally {
      stop();
    }
  });

  it('a streamed body, once copied into the response stream, is not reached from it', async () => {
    // Node keeps each writable stream past young collections itself, so what the response stream
    // still reaches once the copy is over is promoted with it: the body must not be among it. Read
    // as reachability (a full collection with the response stream held) rather than as bytes, which
    // one body's worth of difference would not show above the old generation's other growth.
    const response = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    const copied = async (): Promise<WeakRef<Readable>> => {
      const body = new Readable({ read() {} });
      body.push('data: {}\n\n');
      body.push(null);
      await pumpInto(body, response);
      return new WeakRef(body);
    };
    const body = await copied();
    expect(response.writableFinished).toBe(true);
    // A weak reference holds its target until the task that made it is over, and the streams' own
    // ends run a few turns after the copy's: a body still reachable after several turns and full
    // collections is held by the response stream for good.
    for (let turn = 0; turn < 5 && body.deref() !== undefined; turn += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      gc({ type: 'major', execution: 'sync' });
    }
    expect(body.deref()).toBeUndefined();
  });

  it("the local runtime's response stream, once the response is over, reaches neither the response nor its request", async () => {
    // As above, Node keeps the response stream past young collections: if it still reached the HTTP
    // response once the answer was out, the response, its request, their headers and what was
    // written were promoted with every streamed request. Held here for good, it must let go of them,
    // however the answer ended: whole, streamed, or cut by a client that went away.
    type Ending = 'whole' | 'streamed' | 'abandoned';
    const streams: LocalResponseStream[] = [];
    const exchanges: { request: WeakRef<IncomingMessage>; response: WeakRef<ServerResponse> }[] = [];
    const server = createServer((request, response) => {
      const stream = new LocalResponseStream(response);
      streams.push(stream);
      exchanges.push({ request: new WeakRef(request), response: new WeakRef(response) });
      stream.setPrelude({ statusCode: 200, headers: { 'x-note': freshText(200) } });
      const ending = request.headers['x-ending'] as Ending;
      if (ending === 'whole') stream.end(JSON.stringify({ note: freshText(TEXT) }));
      else {
        // A first chunk, then the end a turn later, unless the client leaves first.
        stream.write(`data: ${freshText(TEXT)}\n\n`);
        if (ending === 'streamed') setImmediate(() => stream.end());
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const endings: Ending[] = ['whole', 'streamed', 'abandoned', 'whole', 'streamed', 'abandoned'];
      for (const [index, ending] of endings.entries()) {
        await new Promise<void>((resolve, reject) => {
          // A connection of its own, closed after the answer: a kept-alive one holds its last request.
          const call = httpRequest(
            { port, method: 'POST', agent: false, headers: { connection: 'close', 'x-ending': ending } },
            (answer) => {
              if (ending === 'abandoned') {
                // Gone once the first bytes are in: the stream is destroyed with the client's leaving.
                answer.once('data', () => call.destroy());
                answer.once('close', resolve);
                return;
              }
              answer.resume();
              answer.on('end', resolve);
            },
          );
          call.on('error', (error) => (ending === 'abandoned' ? undefined : reject(error)));
          call.end(index % 2 === 1 ? freshText(TEXT) : '');
        });
      }
      await Promise.all(
        streams.map((stream) => (stream.closed ? undefined : new Promise((resolve) => stream.once('close', resolve)))),
      );
      const reachable = () => exchanges.filter((held) => held.request.deref() ?? held.response.deref());
      for (let turn = 0; turn < 5 && reachable().length > 0; turn += 1) {
        await new Promise((resolve) => setImmediate(resolve));
        gc({ type: 'major', execution: 'sync' });
      }
      expect(streams.map((stream) => stream.destroyed)).toEqual(endings.map(() => true));
      // The abandoned streams ended as Lambda's do when the client goes away: with an error.
      expect(streams.map((stream) => stream.errored !== null)).toEqual(endings.map((ending) => ending === 'abandoned'));
      expect(reachable()).toEqual([]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("validating a request body keeps none of it, whichever endpoint's schema", async () => {
    // A schema whose check leaves a closure on zod's payload (a superRefine's `addIssue`) kept every
    // value it checked, and an agent's whole conversation with it, past young collections.
    const text = () => freshText(TEXT);
    const bodies: [string, () => z.ZodMiniType, () => unknown][] = [
      ['chat', chatCompletionRequestSchema, () => ({ model: 'm', messages: [{ role: 'user', content: text() }] })],
      [
        'messages',
        anthropicMessagesRequestSchema,
        () => ({ model: 'm', max_tokens: 16, messages: [{ role: 'user', content: text() }] }),
      ],
      [
        'count tokens',
        anthropicCountTokensRequestSchema,
        () => ({ model: 'm', messages: [{ role: 'user', content: text() }] }),
      ],
      ['responses', responsesRequestSchema, () => ({ model: 'm', input: [{ role: 'user', content: text() }] })],
      [
        'gemini',
        geminiGenerateContentRequestSchema,
        () => ({ contents: [{ role: 'user', parts: [{ text: text() }] }] }),
      ],
      ['embeddings', embeddingsRequestSchema, () => ({ model: 'm', input: [text()] })],
      ['images', imagesRequestSchema, () => ({ model: 'm', prompt: text() })],
      ['speech', speechRequestSchema, () => ({ model: 'm', input: freshText(4000), voice: 'alloy' })],
    ];
    const parsers = bodies.map(([endpoint, schema, body]) => {
      const parse = sparseObjectParser(schema());
      expect({ endpoint, success: parse(body()).success }).toEqual({ endpoint, success: true });
      return { parse, body };
    });
    // One call validates a body of each: eight readings took minutes on a loaded machine. The eight
    // keep some 560 bytes a call between them; the superRefine's payload alone kept about 750 more.
    const kept = await keptPerCall(async () => parsers.every(({ parse, body }) => parse(body()).success));
    expect(kept).toBeLessThan(2 * BOUND);
  });
});
