import { once } from 'node:events';
import { upstreamBrokenResponse } from '../../functions/shared/upstream/upstream-errors.js';
import { SseStream, type OutgoingEvent, type StreamOutcome } from '../../functions/shared/streaming/sse-response.js';
import { captureLogLines } from '../support/captured-log-lines.js';

/** Everything the stream sends, once it has ended. */
const readAll = async (stream: SseStream): Promise<string> => {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
};

/** A source that yields `events`, then fails with `error` when one is given. */
async function* source(events: readonly OutgoingEvent[], error?: Error): AsyncGenerator<OutgoingEvent> {
  for (const event of events) yield event;
  if (error) throw error;
}

/** A source whose next event comes only when the test releases it, and that says when it is closed. */
const heldSource = () => {
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let closed = false;
  async function* events(): AsyncGenerator<OutgoingEvent> {
    try {
      yield { data: { n: 1 } };
      await released;
      yield { data: { n: 2 } };
    } finally {
      closed = true;
    }
  }
  return { events: events(), release, isClosed: () => closed };
};

/** The outcomes a stream reports, and a promise of the first one (to wait on, not to sleep). */
const outcomes = () => {
  const seen: StreamOutcome[] = [];
  let first: (outcome: StreamOutcome) => void = () => undefined;
  const reported = new Promise<StreamOutcome>((resolve) => {
    first = resolve;
  });
  return {
    seen,
    reported,
    onFinish: (outcome: StreamOutcome) => {
      seen.push(outcome);
      first(outcome);
    },
  };
};

describe('SseStream', () => {
  it('frames unnamed events as data lines and named ones with their event line, then the terminator', async () => {
    const finish = outcomes();
    const stream = new SseStream(
      source([{ data: { a: 1 } }, { event: 'message_stop', data: { type: 'message_stop' } }]),
      {
        terminator: 'data: [DONE]\n\n',
        onFinish: finish.onFinish,
      },
    );

    expect(await readAll(stream)).toBe(
      'data: {"a":1}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\ndata: [DONE]\n\n',
    );
    expect(finish.seen).toEqual([{ kind: 'completed' }]);
  });

  it('sends one error event in the chosen format when the source fails, and no terminator', async () => {
    const finish = outcomes();
    const failure = upstreamBrokenResponse('cut');
    const stream = new SseStream(source([{ data: { a: 1 } }], failure), {
      terminator: 'data: [DONE]\n\n',
      errorFormat: 'anthropic',
      onFinish: finish.onFinish,
    });

    const text = await readAll(stream);
    const frames = text.split('\n\n').filter(Boolean);
    expect(frames).toHaveLength(2);
    expect(JSON.parse(frames[1]!.replace(/^data: /, ''))).toMatchObject({
      type: 'error',
      error: { type: expect.any(String) },
    });
    expect(text).not.toContain('[DONE]');
    expect(finish.seen).toEqual([{ kind: 'failed', error: failure }]);
  });

  it("logs a failure of the gateway's own with its stack, and shows the client only that there was one", async () => {
    const logs = captureLogLines('error');
    try {
      const own = await readAll(new SseStream(source([], new TypeError('x is not iterable'))));
      expect(own).toContain('The server had an error while processing your request.');
      expect(own).not.toContain('iterable');
      const upstream = await readAll(new SseStream(source([], upstreamBrokenResponse('cut'))));
      expect(upstream).toContain('cut');
    } finally {
      logs.restore();
    }
    // Only the gateway's own failure is logged: the upstream's is worded for the client already.
    expect(logs.lines.filter((line) => line.message === 'stream failed')).toEqual([
      expect.objectContaining({
        level: 'error',
        error: expect.stringMatching(/^TypeError: x is not iterable\n.*at /s),
      }),
    ]);
  });

  it('lets the endpoint build its own error event', async () => {
    const stream = new SseStream(source([], new Error('boom')), {
      errorEvent: () => ({ event: 'error', data: { custom: true } }),
    });

    expect(await readAll(stream)).toBe('event: error\ndata: {"custom":true}\n\n');
  });

  it('aborts the source once when the client goes away mid-stream, and reports the abort once', async () => {
    const held = heldSource();
    const finish = outcomes();
    let aborts = 0;
    const stream = new SseStream(held.events, {
      abort: () => {
        aborts += 1;
        held.release();
      },
      onFinish: finish.onFinish,
    });
    const [first] = (await once(stream, 'data')) as [Buffer];
    expect(String(first)).toBe('data: {"n":1}\n\n');

    stream.destroy();
    await once(stream, 'close');
    await finish.reported;

    expect(aborts).toBe(1);
    expect(finish.seen).toEqual([{ kind: 'aborted' }]);
  });

  it('sends a keep-alive comment for every interval the source is silent, and stops once the stream ends', async () => {
    const held = heldSource();
    const chunks: string[] = [];
    const stream = new SseStream(held.events, { keepAliveMs: 10 });
    stream.on('data', (chunk: Buffer) => chunks.push(String(chunk)));
    const keepAlives = () => chunks.filter((chunk) => chunk === ': keep-alive\n\n').length;
    // Not one only: the timer is re-armed after each comment.
    await new Promise<void>((resolve) => {
      const check = () => (keepAlives() >= 3 ? resolve() : stream.once('data', check));
      stream.once('data', check);
    });

    held.release();
    await once(stream, 'end');

    expect(chunks[0]).toBe('data: {"n":1}\n\n');
    expect(chunks.at(-1)).toBe('data: {"n":2}\n\n');
    expect(held.isClosed()).toBe(true);
  });
});
