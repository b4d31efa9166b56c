import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { relayEvents, type PassThroughStep } from '../../functions/shared/streaming/pass-through-events.js';
import type { RelaySink } from '../../functions/shared/streaming/pass-through-stream.js';
import { SseStream, type StreamOutcome } from '../../functions/shared/streaming/sse-response.js';
import { upstreamBrokenResponse } from '../../functions/shared/upstream/upstream-errors.js';
import { markBodyComplete } from '../../functions/shared/upstream/upstream-http.js';

/**
 * The relay reads real HTTP bodies: an upstream server whose handler the test drives, so that stalls,
 * dropped connections and slow clients are the ones Node's HTTP stack really produces.
 */
let serve: (response: ServerResponse) => void = () => undefined;
const server = http.createServer((_request, response) => serve(response));
let agent: http.Agent;

beforeAll(async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
});

afterAll(async () => {
  agent.destroy();
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

/** An upstream body, with the upstream's response to write it. */
const openBody = async (): Promise<{ body: IncomingMessage; upstream: ServerResponse }> => {
  const upstream = new Promise<ServerResponse>((resolve) => {
    serve = (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      resolve(response);
    };
  });
  const request = http.get({ port: (server.address() as AddressInfo).port, path: '/', agent });
  // A body torn down mid-stream fails its request too; the gateway's request has its own listener.
  request.on('error', () => undefined);
  const [body] = (await once(request, 'response')) as [IncomingMessage];
  return { body, upstream: await upstream };
};

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

describe('relayEvents', () => {
  it('sends each network chunk as it arrives, completes at [DONE] and hands the connection back', async () => {
    const { body, upstream } = await openBody();
    const { step, ending } = stepOf(body);
    const heard = recordingSink();
    relayEvents(body, 5_000, step, ending).start(heard.sink);

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

  it('stops reading while the client is behind, and goes on when it catches up', async () => {
    const { body, upstream } = await openBody();
    const { step, ending } = stepOf(body);
    let accepting = false;
    const heard = recordingSink(() => accepting);
    const relay = relayEvents(body, 5_000, step, ending);
    relay.start(heard.sink);

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
    const { step, ending } = stepOf(body);
    const heard = recordingSink();
    relayEvents(body, 5_000, step, ending).start(heard.sink);

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
    const endedHeard = recordingSink();
    const endedStep = stepOf(ended.body);
    relayEvents(ended.body, 5_000, endedStep.step, endedStep.ending).start(endedHeard.sink);
    ended.upstream.end('data: one');
    await endedHeard.until(() => endedHeard.settled() !== undefined);
    // A last event without its blank line still counts; then the missing [DONE] is the failure.
    expect(endedHeard.sent).toEqual(['data: relayed one\n\n']);
    expect((endedHeard.settled()?.error as Error).message).toMatch(/no \[DONE\]/);

    const stalled = await openBody();
    const stalledHeard = recordingSink();
    const stalledStep = stepOf(stalled.body);
    relayEvents(stalled.body, 50, stalledStep.step, stalledStep.ending).start(stalledHeard.sink);
    stalled.upstream.write('data: one\n\n');
    await stalledHeard.until(() => stalledHeard.settled() !== undefined);
    expect(stalledHeard.settled()?.error).toMatchObject({ status: 504, code: 'upstream_timeout' });
    stalled.upstream.destroy();

    const dropped = await openBody();
    const droppedHeard = recordingSink();
    const droppedStep = stepOf(dropped.body);
    relayEvents(dropped.body, 5_000, droppedStep.step, droppedStep.ending).start(droppedHeard.sink);
    dropped.upstream.write('data: one\n\n');
    await droppedHeard.until(() => droppedHeard.sent.length === 1);
    dropped.upstream.socket?.destroy();
    await droppedHeard.until(() => droppedHeard.settled() !== undefined);
    expect(droppedHeard.settled()?.error).toMatchObject({ status: 502, code: 'upstream_error' });
  });

  it('fails a stream whose event never ends, after the events before it, and lets go of the upstream', async () => {
    const { body, upstream } = await openBody();
    const { step, ending } = stepOf(body);
    const heard = recordingSink();
    relayEvents(body, 5_000, step, ending, 1_000).start(heard.sink);
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
    const { step, ending } = stepOf(body);
    const heard = recordingSink();
    relayEvents(body, 5_000, step, ending, 1_000).start(heard.sink);
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
    const { step, ending } = stepOf(body);
    upstream.write('data: one\n\n');
    upstream.socket?.destroy();
    // No 'error' listener, as before the gateway's relay starts: a body with none is closed silently.
    await new Promise((resolve) => body.once('close', resolve));
    const heard = recordingSink();
    relayEvents(body, 5_000, step, ending).start(heard.sink);
    await heard.until(() => heard.settled() !== undefined);
    expect(heard.settled()?.error).toMatchObject({ status: 502, code: 'upstream_error' });
  });

  it('behind an SseStream: a client that leaves stops the relay, closes the upstream and reports the abort once', async () => {
    const { body, upstream } = await openBody();
    const { step, ending } = stepOf(body);
    const outcomes: StreamOutcome[] = [];
    let aborts = 0;
    const stream = new SseStream(relayEvents(body, 5_000, step, ending), {
      terminator: 'data: [DONE]\n\n',
      abort: () => (aborts += 1),
      onFinish: (outcome) => outcomes.push(outcome),
    });
    upstream.write('data: one\n\n');
    const [first] = (await once(stream, 'data')) as [Buffer];
    expect(String(first)).toBe('data: relayed one\n\n');

    stream.destroy();
    await once(body, 'close');
    upstream.write('data: two\n\n');
    expect(aborts).toBe(1);
    expect(outcomes).toEqual([{ kind: 'aborted' }]);
  });

  it('behind an SseStream: the error event in the client’s protocol, then the end, and no terminator', async () => {
    const { body, upstream } = await openBody();
    const { step, ending } = stepOf(body);
    const outcomes: StreamOutcome[] = [];
    const stream = new SseStream(relayEvents(body, 5_000, step, ending), {
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
});
