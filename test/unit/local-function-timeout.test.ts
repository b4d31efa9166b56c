import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { holdToTimeout, lambdaRuntimeEvents, type InvocationEnd } from '../../infra/local/function-timeout.js';
import { whileOpen } from '../../infra/local/open-exchange.js';

/**
 * The local runtime holds every invocation to its timeout as Lambda does, for a handler that does not
 * wrap up in time by itself: the client gets what API Gateway gives then, and the end is reported.
 */
const TIMEOUT_SECONDS = 0.2;

let server: Server;
let url: string;
let behave: (response: ServerResponse) => Promise<void>;

beforeAll(async () => {
  server = createServer((request, response) => {
    const requestId = `req-${Math.random().toString(36).slice(2)}`;
    response.setHeader('x-request-id', requestId);
    holdToTimeout(
      behave(response),
      { functionName: 'model-gateway-chat', requestId, timeoutSeconds: TIMEOUT_SECONDS },
      whileOpen(request, response),
      () => undefined,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const nextEnd = () => new Promise<InvocationEnd>((resolve) => lambdaRuntimeEvents.once('invocation-end', resolve));

/** The next end of an invocation that its timeout stopped. */
const endTimedOut = async (): Promise<InvocationEnd> => {
  for (;;) {
    const end = await nextEnd();
    if (end.timedOut) return end;
  }
};

const never = () => new Promise<void>(() => undefined);

it("answers API Gateway's 502 for a function stopped before it answered", async () => {
  behave = never;
  const ended = nextEnd();

  const response = await fetch(url);

  expect(response.status).toBe(502);
  expect(await response.json()).toEqual({ message: 'Internal server error' });
  expect(await ended).toMatchObject({
    functionName: 'model-gateway-chat',
    timedOut: true,
    timeoutSeconds: TIMEOUT_SECONDS,
  });
});

it('cuts a stream still running at the timeout, so the client sees it broken, not complete', async () => {
  behave = async (response) => {
    response.writeHead(200, { 'content-type': 'text/event-stream' });
    response.write('data: {"partial":true}\n\n');
    await never();
  };
  const ended = nextEnd();

  const response = await fetch(url);

  expect(response.status).toBe(200);
  await expect(response.text()).rejects.toThrow();
  expect((await ended).timedOut).toBe(true);
});

it('reports an invocation that ended in time as not timed out, and leaves its answer alone', async () => {
  behave = async (response) => {
    response.end('done');
  };
  const ended = nextEnd();

  const response = await fetch(url);

  expect(await response.text()).toBe('done');
  expect((await ended).timedOut).toBe(false);
});

it('reports a function that answered and ran on past its timeout as timed out, and leaves its answer whole', async () => {
  behave = async (response) => {
    response.end('answered');
    await never();
  };
  const ended = nextEnd();

  const response = await fetch(url);

  expect(await response.text()).toBe('answered');
  expect((await ended).timedOut).toBe(true);
});

it('fails, rather than hangs, when reporting the end of an invocation throws', async () => {
  const broken = new Error('a listener broke');
  const throwing = () => {
    throw broken;
  };
  lambdaRuntimeEvents.once('invocation-end', throwing);
  const ended = new Promise<unknown>((resolve) =>
    holdToTimeout(
      Promise.resolve(),
      { functionName: 'f', requestId: 'r', timeoutSeconds: 60 },
      { response: undefined },
      (failure) => resolve(failure?.error),
    ),
  );
  await expect(ended).resolves.toBe(broken);
});

it('tells how an invocation ended once: with its failure, or at its timeout and not again', async () => {
  const told: unknown[] = [];
  const tell = (failure: { readonly error: unknown } | undefined) => told.push(failure ? failure.error : 'ended');
  const failure = new Error('the handler failed');
  let stopLate: () => void = () => undefined;
  const late = new Promise<void>((_resolve, reject) => (stopLate = () => reject(new Error('too late'))));
  const timedOut = endTimedOut();

  holdToTimeout(
    Promise.reject(failure),
    { functionName: 'f', requestId: 'a', timeoutSeconds: 60 },
    { response: undefined },
    tell,
  );
  holdToTimeout(
    late,
    { functionName: 'f', requestId: 'b', timeoutSeconds: TIMEOUT_SECONDS },
    { response: undefined },
    tell,
  );
  await timedOut;
  stopLate();
  await new Promise((resolve) => setImmediate(resolve));

  expect(told).toEqual([failure, 'ended']);
});

it('stops every invocation past its deadline even when reporting one of them throws', async () => {
  const stopped: string[] = [];
  let all: () => void = () => undefined;
  const bothStopped = new Promise<void>((resolve) => (all = resolve));
  const tell = (requestId: string) => () => {
    stopped.push(requestId);
    if (stopped.length === 2) all();
  };
  lambdaRuntimeEvents.once('invocation-end', () => {
    throw new Error('a listener broke');
  });

  for (const requestId of ['first', 'second'])
    holdToTimeout(
      never(),
      { functionName: 'f', requestId, timeoutSeconds: TIMEOUT_SECONDS },
      { response: undefined },
      tell(requestId),
    );
  await bothStopped;

  expect(stopped.sort()).toEqual(['first', 'second']);
});
