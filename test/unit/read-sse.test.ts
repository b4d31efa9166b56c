import type { IncomingMessage } from 'node:http';
import { readSse, type SseEvent } from '../../functions/shared/upstream/read-sse.js';
import { startDrivenUpstream, type DrivenUpstream } from '../support/driven-upstream.js';

let upstreamServer: DrivenUpstream;
beforeAll(async () => {
  upstreamServer = await startDrivenUpstream();
});
afterAll(() => upstreamServer.close());
const openBody = () => upstreamServer.openBody();

const readAll = async (body: IncomingMessage, maxEventCharacters: number) => {
  const events: SseEvent[] = [];
  try {
    for await (const event of readSse(body, 5_000, maxEventCharacters)) events.push(event);
    return { events, failure: undefined };
  } catch (failure) {
    return { events, failure };
  }
};

describe('readSse', () => {
  it('reads events split anywhere, the last one even without its blank line', async () => {
    const { body, upstream } = await openBody();
    const read = readAll(body, 1_000);
    upstream.write('event: a\ndata: o');
    upstream.write('ne\n\ndata: two\n');
    upstream.end('\ndata: three');
    const { events, failure } = await read;
    expect(failure).toBeUndefined();
    expect(events.map(({ event, data }) => [event, data])).toEqual([
      ['a', 'one'],
      [undefined, 'two'],
      [undefined, 'three'],
    ]);
  });

  it('fails with a 502 once an event outgrows the limit, after the events before it', async () => {
    const { body, upstream } = await openBody();
    const read = readAll(body, 1_000);
    upstream.write('data: one\n\n');
    for (let index = 0; index < 4; index++) upstream.write(`data: ${'x'.repeat(400)}\n`);
    const { events, failure } = await read;
    expect(events.map(({ data }) => data)).toEqual(['one']);
    expect(failure).toMatchObject({ status: 502, message: expect.stringMatching(/grew past 1000 characters/) });
    expect(body.destroyed).toBe(true);
    upstream.destroy();
  });
});
