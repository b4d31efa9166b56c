import fc from 'fast-check';
import { once } from 'node:events';
import { Readable, Writable } from 'node:stream';
import { pumpInto } from '../../functions/shared/middleware/streamed-execution.js';

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

  it('fails, and destroys the body, when the response stream fails', async () => {
    const body = heldBody(['first']);
    const { destination } = slowDestination(16);
    const pumped = pumpInto(body, destination);
    destination.destroy(new Error('socket reset'));
    await expect(pumped).rejects.toThrow('socket reset');
    expect(body.destroyed).toBe(true);
  });
});
