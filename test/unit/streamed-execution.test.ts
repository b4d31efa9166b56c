import fc from 'fast-check';
import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { executionModeStreamedResponse, pumpInto } from '../../functions/shared/middleware/streamed-execution.js';
import { installLambdaStreamingGlobals } from '../../infra/local/lambda-streaming.js';

/**
 * How a streamed body reaches the response stream: every byte in order under back-pressure, and the
 * outcomes `stream.pipeline` gives for each way it can end (either side failing, the client leaving).
 */

/** A response stream that takes each write only when the test lets it, as a slow client does. */
const slowDestination = (highWaterMark: number) => {
  const received: string[] = [];
  const destination = new Writable({
    highWaterMark,
    write(chunk: Buffer, _encoding, callback) {
      received.push(chunk.toString());
      this.emit('received');
      setImmediate(callback);
    },
  });
  return { destination, received };
};

/** A body that yields `chunks` and then waits, until the test ends or fails it. */
const heldBody = (chunks: readonly string[]) => {
  let pushed = 0;
  const body = new Readable({
    read() {
      if (pushed < chunks.length) this.push(chunks[pushed++]);
    },
  });
  return body;
};

describe('pumping a stream body into the response stream', () => {
  it('delivers every chunk in order through a slow response stream, and settles once it has finished', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ minLength: 1, maxLength: 40 }), { minLength: 0, maxLength: 30 }),
        fc.integer({ min: 1, max: 64 }),
        async (chunks, highWaterMark) => {
          const { destination, received } = slowDestination(highWaterMark);
          await pumpInto(Readable.from(chunks, { objectMode: false }), destination);
          expect(destination.writableFinished).toBe(true);
          expect(received.join('')).toBe(chunks.join(''));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('fails, and destroys the response stream, when the body fails', async () => {
    const body = heldBody(['first']);
    const { destination, received } = slowDestination(16);
    const pumped = pumpInto(body, destination);
    await once(destination, 'received');
    body.destroy(new Error('upstream cut'));
    await expect(pumped).rejects.toThrow('upstream cut');
    expect(destination.destroyed).toBe(true);
    expect(received).toEqual(['first']);
  });

  it('fails, and destroys the body, when the client leaves before the end', async () => {
    const body = heldBody(['first']);
    let bodyDestroyed = false;
    body._destroy = (error, callback) => {
      bodyDestroyed = true;
      callback(error);
    };
    const { destination } = slowDestination(16);
    const pumped = pumpInto(body, destination);
    await once(destination, 'received');
    // The client went away: the runtime closes the response stream without an error.
    destination.destroy();
    await expect(pumped).rejects.toThrow('closed before the body ended');
    expect(bodyDestroyed).toBe(true);
  });

  it('hears a late error on either stream, once the copy is over, whichever way it ended', async () => {
    // An error event nobody listens to is thrown by the stream that emits it: it would end the process.
    const finished = slowDestination(16);
    const finishedBody = Readable.from(['done']);
    await pumpInto(finishedBody, finished.destination);
    expect(() => finished.destination.emit('error', new Error('late'))).not.toThrow();
    expect(() => finishedBody.emit('error', new Error('late'))).not.toThrow();

    const failedBody = heldBody(['first']);
    const failed = slowDestination(16);
    const pumped = pumpInto(failedBody, failed.destination);
    failed.destination.destroy(new Error('socket reset'));
    await expect(pumped).rejects.toThrow('socket reset');
    expect(() => failed.destination.emit('error', new Error('late'))).not.toThrow();
    expect(() => failedBody.emit('error', new Error('late'))).not.toThrow();
  });

  it('fails, and destroys the body, when the response stream fails', async () => {
    const body = heldBody(['first']);
    const { destination } = slowDestination(16);
    const pumped = pumpInto(body, destination);
    destination.destroy(new Error('socket reset'));
    await expect(pumped).rejects.toThrow('socket reset');
    expect(body.destroyed).toBe(true);
  });
});

describe("the streaming functions' execution mode", () => {
  beforeAll(() => installLambdaStreamingGlobals());

  /** The mode's Lambda entry around a handler whose answer is `answer`, with `plugin` as middy's hooks. */
  const entryAnswering = (answer: unknown, plugin: { requestStart(): void; requestEnd(): Promise<void> }) =>
    executionModeStreamedResponse(
      {
        middyRequest: (event: unknown, context: unknown) => ({ event, context }),
        runRequest: async () => answer,
      },
      [],
      undefined,
      [],
      [],
      plugin,
    ) as unknown as (event: unknown, stream: Writable, context: unknown) => Promise<void>;

  /** The mode around a handler whose answer is `answer`, with a record of the hooks it ran. */
  const invoke = async (answer: unknown, options: { requestEndFails?: boolean } = {}) => {
    const hooks: string[] = [];
    const entry = entryAnswering(answer, {
      requestStart: () => void hooks.push('start'),
      requestEnd: async () => {
        hooks.push('end');
        if (options.requestEndFails) throw new Error('end hook failed');
      },
    });
    const { destination, received } = slowDestination(16);
    const outcome = await entry({}, destination, {}).then(
      () => ({ ok: true as const }),
      (error: Error) => ({ ok: false as const, message: error.message }),
    );
    return { outcome, hooks, received: received.join(''), destination };
  };

  it('writes a string body whole, after the empty write that sends the head, then runs the end hook', async () => {
    const { outcome, hooks, received, destination } = await invoke({ statusCode: 200, body: '{"ok":true}' });
    expect(outcome).toEqual({ ok: true });
    expect(received).toBe('{"ok":true}');
    expect(destination.writableFinished).toBe(true);
    expect(hooks).toEqual(['start', 'end']);
    // A late error on the response stream is heard, not thrown out of the process.
    expect(() => destination.emit('error', new Error('late'))).not.toThrow();
  });

  it('pumps a stream body to its end', async () => {
    const { outcome, received } = await invoke({ statusCode: 200, body: Readable.from(['a', 'b', 'c']) });
    expect(outcome).toEqual({ ok: true });
    expect(received).toBe('abc');
  });

  it.each([
    ['a plain object', { not: 'a stream' }],
    ['a web stream', new ReadableStream({ start: (controller) => controller.close() })],
  ])('fails on a body that is neither a string nor a Node stream (%s), after the end hook has run', async (_, body) => {
    const { outcome, hooks } = await invoke({ statusCode: 200, body });
    expect(outcome).toEqual({ ok: false, message: expect.stringContaining('neither a string nor a Node stream') });
    expect(hooks).toEqual(['start', 'end']);
  });

  it("reports the body's failure rather than a failing end hook's, and the hook's when the body went out", async () => {
    const failing = new Readable({
      read() {
        this.destroy(new Error('upstream cut'));
      },
    });
    expect((await invoke({ statusCode: 200, body: failing }, { requestEndFails: true })).outcome).toEqual({
      ok: false,
      message: 'upstream cut',
    });
    expect((await invoke({ statusCode: 200, body: 'fine' }, { requestEndFails: true })).outcome).toEqual({
      ok: false,
      message: 'end hook failed',
    });
  });

  /** A response stream that records what reaches it write by write: a batch is one write to the runtime. */
  const batchingDestination = () => {
    const batches: string[][] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        batches.push([chunk.toString()]);
        this.emit('batch');
        callback();
      },
      writev(chunks, callback) {
        batches.push(chunks.map(({ chunk }) => (chunk as Buffer).toString()));
        this.emit('batch');
        callback();
      },
    });
    return { destination, batches };
  };

  const streamingEntry = (body: Readable) =>
    entryAnswering({ statusCode: 200, body }, { requestStart: () => undefined, requestEnd: async () => undefined });

  it("sends the head in the same write as the body's first bytes when they are already there", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ minLength: 1, maxLength: 20 }), { minLength: 1, maxLength: 5 }),
        async (ready) => {
          const { destination, batches } = batchingDestination();
          await streamingEntry(Readable.from(ready, { objectMode: false }))({}, destination, {});

          expect(batches[0]!.slice(0, 2)).toEqual(['', ready[0]]);
          expect(batches.flat().join('')).toBe(ready.join(''));
        },
      ),
      { numRuns: 30 },
    );
  });

  it('does not hold the head for a body whose first bytes are not there yet', async () => {
    const body = heldBody([]);
    const { destination, batches } = batchingDestination();
    const invocation = streamingEntry(body)({}, destination, {});

    await once(destination, 'batch');
    expect(batches).toEqual([['']]);
    body.push('late first token');
    body.push(null);
    await invocation;
    expect(batches.flat().join('')).toBe('late first token');
  });

  it('ends with the client gone when it leaves while the head is held, the body destroyed', async () => {
    const body = heldBody([]);
    const { destination, batches } = batchingDestination();
    const invocation = streamingEntry(body)({}, destination, {});

    // The body is being copied, and the turn has not ended: the head is still held when the runtime
    // closes the stream.
    await once(destination, 'pipe');
    destination.destroy();

    await expect(invocation).rejects.toThrow('closed before the body ended');
    expect(body.destroyed).toBe(true);
    expect(batches).toEqual([]);
  });

  it('treats an answer without a status (or none at all) as the body itself', async () => {
    expect((await invoke('plain text')).received).toBe('plain text');
    expect((await invoke(null)).outcome).toEqual({ ok: true });
    expect((await invoke(undefined)).received).toBe('');
  });
});
