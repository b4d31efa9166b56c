import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { relayEvents, type PassThroughStep } from '../../functions/shared/streaming/pass-through-events.js';
import type { RelaySink } from '../../functions/shared/streaming/pass-through-stream.js';
import { SseStream, type StreamOutcome } from '../../functions/shared/streaming/sse-response.js';
import { upstreamBrokenResponse } from '../../functions/shared/upstream/upstream-errors.js';
import { markBodyComplete } from '../../functions/shared/upstream/upstream-http.js';
import { startDrivenUpstream, type DrivenUpstream } from '../support/driven-upstream.js';

/** The relay reads real HTTP bodies: stalls, drops and slow clients as Node's HTTP stack makes them. */
let upstreamServer: DrivenUpstream;
beforeAll(async () => {
  upstreamServer = await startDrivenUpstream();
});
afterAll(() => upstreamServer.close());
const openBody = () => upstreamServer.openBody();

/** Data events renamed to say they went through; `[DONE]` completes the stream. */
const stepOf = (body: IncomingMessage) => {
  let done = false;
  const step: PassThroughStep = ({ data }) => {
    if (data === '[DONE]') {
      done = true;
      markBodyComplete(body);
      return undefined;
    }
    if (data === 'broken') throw upstreamBrokenResponse('a broken event');
    return `data: relayed ${data}\n\n`;
  };
  return { step, ending: { complete: () => done, unfinished: () => upstreamBrokenResponse('no [DONE]') } };
};

/** A sink that records what it hears, and says each time something arrived. */
const recordingSink = (accept: () => boolean = () => true) => {
  const sent: string[] = [];
  let wake: () => void = () => undefined;
  let settled: { readonly error?: unknown } | undefined;
  const sink: RelaySink = {
    send: (text) => {
      sent.push(text);
      wake();
      return accept();
    },
    end: () => {
      settled = {};
      wake();
    },
    fail: (error) => {
      settled = { error };
      wake();
    },
  };
  /** Resolves once `condition` holds, checked each time the sink hears something. */
  const until = async (condition: () => boolean): Promise<void> => {
    while (!condition()) await new Promise<void>((resolve) => (wake = resolve));
  };
  return { sink, sent, until, settled: () => settled };
};

/** The relay of `body` with `stepOf`'s step and ending. */
const relayOf = (body: IncomingMessage, idleMs = 5_000, maxEventCharacters?: number) => {
  const { step, ending } = stepOf(body);
  return relayEvents(body, idleMs, step, ending, maxEventCharacters);
};

/** The relay of `body`, started into a recording sink. */
const startRelay = (
  body: IncomingMessage,
  { idleMs, maxEventCharacters, accept }: { idleMs?: number; maxEventCharacters?: number; accept?: () => boolean } = {},
) => {
  const heard = recordingSink(accept);
  const relay = relayOf(body, idleMs, maxEventCharacters);
  relay.start(heard.sink);
  return { relay, heard };
};

describe('relayEvents', () => {
  it('sends each network chunk as it arrives, completes at [DONE] and hands the connection back', async () => {
    const { body, upstream } = await openBody();
    const { heard } = startRelay(body);

    upstream.write('data: one\n\ndata: tw');
    await heard.until(() => heard.sent.length === 1);
    expect(heard.sent).toEqual(['data: relayed one\n\n']);

    upstream.write('o\n\ndata: [DONE]\n\n');
    await heard.until(() => heard.settled() !== undefined);
    expect(heard.sent).toEqual(['data: relayed one\n\n', 'data: relayed two\n\n']);
    expect(heard.settled()).toEqual({});

    // The rest of the body is drained, not cut: the socket goes back to the pool for the next call.
    const socket = body.socket;
    upstream.end();
    await once(body, 'end');
    expect(socket.destroyed).toBe(false);
  });

  it('sends what one network read brought as one send, however many chunks the upstream wrote', async () => {
    const { body, upstream } = await openBody();
    const { heard } = startRelay(body);

    // Three chunks of the chunked body in one socket write (the response itself would join them into
    // one): one read, three data events.
    const chunk = (text: string) => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
    upstream.socket!.write(['a', 'b', 'c'].map((name) => chunk(`data: ${name}\n\n`)).join(''));
    await heard.until(() => heard.sent.length > 0);
    expect(heard.sent).toEqual(['data: relayed a\n\ndata: relayed b\n\ndata: relayed c\n\n']);

    upstream.end('data: [DONE]\n\n');
    await heard.until(() => heard.settled() !== undefined);
    expect(heard.settled()).toEqual({});
  });

  it('sends the events of a read before a failure heard in the same turn', async () => {
    const { body } = await openBody();
    // In the order the client's stream would be told: nothing sent after the failure reaches it.
    const told: string[] = [];
    relayOf(body).start({
      send: (text) => told.push(text) > 0,
      end: () => told.push('end'),
      fail: () => told.push('fail'),
    });

    // A read's data, then its body failing at once: the failure is heard before the read's events go.
    body.emit('data', Buffer.from('data: a\n\ndata: b\n\n'));
    body.emit('error', new Error('connection reset'));
    await new Promise((resolve) => setImmediate(resolve));

    expect(told).toEqual(['data: relayed a\n\ndata: relayed b\n\n', 'fail']);
    body.destroy();
  });

  it('stops reading while the client is behind, and goes on when it catches up', async () => {
    const { body, upstream } = await openBody();
    let accepting = false;
    const { relay, heard } = startRelay(body, { accept: () => accepting });

    upstream.write('data: one\n\n');
    await heard.until(() => heard.sent.length === 1);
    expect(body.isPaused()).toBe(true);

    accepting = true;
    relay.resume();
    expect(body.isPaused()).toBe(false);
    upstream.end('data: two\n\ndata: [DONE]\n\n');
    await heard.until(() => heard.settled() !== undefined);
    expect(heard.sent).toEqual(['data: relayed one\n\n', 'data: relayed two\n\n']);
  });

  it('sends what came before a broken event, then fails with that event’s error', async () => {
    const { body, upstream } = await openBody();
    const { heard } = startRelay(body);

    upstream.write('data: one\n\ndata: broken\n\ndata: never\n\n');
    await heard.until(() => heard.settled() !== undefined);
    expect(heard.sent).toEqual(['data: relayed one\n\n']);
    expect((heard.settled()?.error as Error).message).toMatch(/broken event/);
    // Not complete: the connection is closed rather than handed back half read.
    expect(body.destroyed).toBe(true);
    upstream.destroy();
  });

  it('fails a body that ends before the last event, one that stalls, and one whose connection drops', async () => {
    const ended = await openBody();
    const { heard: endedHeard } = startRelay(ended.body);
    ended.upstream.end('data: one');
    await endedHeard.until(() => endedHeard.settled() !== undefined);
    // A last event without its blank line still counts; then the missing [DONE] is the failure.
    expect(endedHeard.sent).toEqual(['data: relayed one\n\n']);
    expect((endedHeard.settled()?.error as Error).message).toMatch(/no \[DONE\]/);

    const stalled = await openBody();
    const { heard: stalledHeard } = startRelay(stalled.body, { idleMs: 50 });
    stalled.upstream.write('data: one\n\n');
    await stalledHeard.until(() => stalledHeard.settled() !== undefined);
    expect(stalledHeard.settled()?.error).toMatchObject({ status: 504, code: 'upstream_timeout' });
    stalled.upstream.destroy();

    const dropped = await openBody();
    const { heard: droppedHeard } = startRelay(dropped.body);
    dropped.upstream.write('data: one\n\n');
    await droppedHeard.until(() => droppedHeard.sent.length === 1);
    dropped.upstream.socket?.destroy();
    await droppedHeard.until(() => droppedHeard.settled() !== undefined);
    expect(droppedHeard.settled()?.error).toMatchObject({ status: 502, code: 'upstream_error' });
  });

  it('takes a whole last event the body ends on without its blank line, and never a piece of one', async () => {
    const whole = await openBody();
    const { heard: wholeHeard } = startRelay(whole.body);
    whole.upstream.end('data: {"n":1}\n\ndata: {"n":2,"nested":{"a":[1]}}');
    await wholeHeard.until(() => wholeHeard.settled() !== undefined);
    expect(wholeHeard.sent.join('')).toBe('data: relayed {"n":1}\n\ndata: relayed {"n":2,"nested":{"a":[1]}}\n\n');

    // Cut inside an object, even right after one of its inner objects closes.
    for (const piece of ['{"n":2,"nest', '{"n":2,"nested":{"a":[1]}', '{"n":2,"text":"a}']) {
      const cut = await openBody();
      const { heard } = startRelay(cut.body);
      cut.upstream.end(`data: {"n":1}\n\ndata: ${piece}`);
      await heard.until(() => heard.settled() !== undefined);
      expect(heard.sent.join('')).toBe('data: relayed {"n":1}\n\n');
      expect((heard.settled()?.error as Error).message).toMatch(/no \[DONE\]/);
    }
  });

  it('fails a stream whose event never ends, after the events before it, and lets go of the upstream', async () => {
    const { body, upstream } = await openBody();
    const { heard } = startRelay(body, { maxEventCharacters: 1_000 });
    upstream.write('data: one\n\n');
    // Under the limit in every chunk, over it in all: the open event is what counts, not the chunk.
    for (let index = 0; index < 4; index++) upstream.write(`data: ${'x'.repeat(400)}`);
    await heard.until(() => heard.settled() !== undefined);
    expect(heard.sent).toEqual(['data: relayed one\n\n']);
    expect(heard.settled()?.error).toMatchObject({ status: 502, message: expect.stringMatching(/grew past 1000/) });
    expect(body.destroyed).toBe(true);
    upstream.destroy();
  });

  it('takes events as large as the limit, however they are split', async () => {
    const { body, upstream } = await openBody();
    const { heard } = startRelay(body, { maxEventCharacters: 1_000 });
    const large = 'y'.repeat(900);
    for (let index = 0; index < 3; index++) {
      upstream.write(`data: ${large.slice(0, 450)}`);
      upstream.write(`${large.slice(450)}\n\n`);
    }
    upstream.end('data: [DONE]\n\n');
    await heard.until(() => heard.settled() !== undefined);
    expect(heard.settled()).toEqual({});
    expect(heard.sent.join('')).toBe(`data: relayed ${large}\n\n`.repeat(3));
  });

  it('fails at once a body whose connection dropped before the relay started', async () => {
    const { body, upstream } = await openBody();
    upstream.write('data: one\n\n');
    upstream.socket?.destroy();
    // No 'error' listener, as before the gateway's relay starts: a body with none is closed silently.
    await new Promise((resolve) => body.once('close', resolve));
    const { heard } = startRelay(body);
    await heard.until(() => heard.settled() !== undefined);
    expect(heard.settled()?.error).toMatchObject({ status: 502, code: 'upstream_error' });
  });

  it('behind an SseStream: a client that leaves stops the relay, closes the upstream and reports the abort once', async () => {
    const { body, upstream } = await openBody();
    const outcomes: StreamOutcome[] = [];
    let aborts = 0;
    const stream = new SseStream(relayOf(body), {
      terminator: 'data: [DONE]\n\n',
      abort: () => (aborts += 1),
      onFinish: (outcome) => outcomes.push(outcome),
    });
    upstream.write('data: one\n\n');
    const [first] = (await once(stream, 'data')) as [Buffer];
    expect(String(first)).toBe('data: relayed one\n\n');

    stream.destroy();
    await once(body, 'close');
    expect(aborts).toBe(1);
    expect(outcomes).toEqual([{ kind: 'aborted' }]);
  });

  it('behind an SseStream: the error event in the client’s protocol, then the end, and no terminator', async () => {
    const { body, upstream } = await openBody();
    const outcomes: StreamOutcome[] = [];
    const stream = new SseStream(relayOf(body), {
      terminator: 'data: [DONE]\n\n',
      onFinish: (outcome) => outcomes.push(outcome),
    });
    upstream.write('data: one\n\n');
    upstream.end('data: broken\n\n');
    let text = '';
    for await (const chunk of stream) text += String(chunk);
    const events = text.split('\n\n').filter(Boolean);
    expect(events[0]).toBe('data: relayed one');
    expect(JSON.parse(events[1]!.replace(/^data: /, ''))).toMatchObject({ error: { message: expect.any(String) } });
    expect(events).toHaveLength(2);
    expect(outcomes).toEqual([{ kind: 'failed', error: expect.any(Error) }]);
  });

  it('behind an SseStream: a client that stops reading holds the upstream, and gets everything once it reads', async () => {
    const { body, upstream } = await openBody();
    const stream = new SseStream(relayOf(body), { terminator: 'data: [DONE]\n\n' });
    const event = `data: ${'z'.repeat(1_000)}\n\n`;
    // More than the stream's buffer (64 KB) before anyone reads: the relay must pause the body.
    const events = 200;
    // Asked for data once, so the relay starts; then nobody reads.
    stream.read(0);
    const paused = once(body, 'pause');
    upstream.write(event.repeat(events));
    await paused;
    expect(stream.readableLength).toBeGreaterThanOrEqual(stream.readableHighWaterMark);

    upstream.end('data: [DONE]\n\n');
    let text = '';
    stream.on('data', (chunk: Buffer) => (text += String(chunk)));
    stream.resume();
    await once(stream, 'end');
    expect(text).toBe(`data: relayed ${'z'.repeat(1_000)}\n\n`.repeat(events) + 'data: [DONE]\n\n');
  });
});
