import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Admission } from '../../functions/shared/accounting/admission.js';
import type { Principal } from '../../functions/shared/auth/principal.js';
import type { CatalogModel } from '../../functions/shared/catalog/model-catalog.js';
import { json } from '../../functions/shared/http/response.js';
import { gatewayHandler, type GatewayRequest } from '../../functions/shared/middleware/gateway-handler.js';
import { startMeter } from '../../functions/shared/middleware/request-meter.js';
import { RequestTrace } from '../../functions/shared/observability/request-trace.js';
import { holdToTimeout, type Invocation } from '../../infra/local/function-timeout.js';
import { invokeHandler } from '../../infra/local/invoke-handler.js';
import { installLambdaStreamingGlobals, type StreamingHandler } from '../../infra/local/lambda-streaming.js';
import { whileOpen, type OpenExchange } from '../../infra/local/open-exchange.js';
import { isCollected } from '../support/collect-garbage.js';
import { useInMemoryStore } from '../support/in-memory-store.js';
import { lambdaContextStub, proxyEvent } from '../support/proxy-event.js';

/**
 * An invocation whose response has gone out may still wait on its deferred work (a usage record in a
 * batched write, tens of milliseconds where one process serves many invocations). While it waits it
 * must hold what that work needs, not the request: its event and body, the HTTP request and response.
 * Held by hundreds of waiting invocations under load, they outlived V8's young generation.
 */

installLambdaStreamingGlobals();
useInMemoryStore();

/** Deferred work that waits until the test releases it. */
const heldWork = () => {
  let release: () => void = () => undefined;
  let started: () => void = () => undefined;
  const running = new Promise<void>((resolve) => (started = resolve));
  const work = () => {
    started();
    return new Promise<void>((resolve) => (release = resolve));
  };
  return { work, running, release: () => release() };
};

/** The end of an invocation the local runtime holds to its timeout; made out here, so that it keeps no request. */
const endOf = (invocation: Promise<void>, timed: Invocation, exchange: OpenExchange): Promise<void> =>
  new Promise((resolve) => holdToTimeout(invocation, timed, exchange, () => resolve()));

describe('an invocation waiting on its deferred work', () => {
  it('lets its event (and the body in it) go once the streamed response has finished', async () => {
    const held = heldWork();
    const handler = gatewayHandler({ auth: false, optionalJsonBody: true, streaming: true }, async ({ defer }) => {
      defer(held.work);
      return json(200, { ok: true });
    }) as unknown as StreamingHandler;
    const sink = new Writable({ write: (_chunk, _encoding, callback) => callback() });
    const finished = new Promise((resolve) => sink.once('finish', resolve));
    const context = lambdaContextStub();
    // Made in a function of its own, so that no frame of the test keeps the event.
    const start = () => {
      const event = proxyEvent({ httpMethod: 'POST', body: JSON.stringify({ prompt: 'x'.repeat(100_000) }) });
      return { event: new WeakRef(event), ended: handler(event, sink, context) };
    };
    const invocation = start();

    await finished;
    await held.running;

    expect(await isCollected(invocation.event)).toBe(true);
    let ended = false;
    void invocation.ended.then(() => (ended = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(ended).toBe(false);
    held.release();
    await invocation.ended;
  });

  it('lets its request go while the meter waits on the store for its record and settlement', async () => {
    const held = heldWork();
    const model = { id: 'retention-model', settings: undefined } as unknown as CatalogModel;
    const principal = { keyId: 'key_retention', accountId: 'acct_retention' } as Principal;
    // Made in a function of its own, so that no frame of the test keeps the request or the meter.
    const start = () => {
      const request = {
        requestId: 'req-retention-meter',
        principal,
        startedAt: Date.now(),
        trace: new RequestTrace(),
        body: { prompt: 'x'.repeat(100_000) },
      } as unknown as GatewayRequest<unknown>;
      const meter = startMeter(request, model, 'chat', false);
      // A settlement the store has not answered yet (a quota or a token window).
      const settle = () => held.work().then(() => ({ cost: 0 }));
      meter.admitted({ headers: {}, estimatedTokens: 0, reservedCost: 0, settlesCharges: true, settle } as Admission);
      return { request: new WeakRef(request), written: meter.record('success', 200) };
    };
    const recording = start();

    await held.running;

    expect(await isCollected(recording.request)).toBe(true);
    held.release();
    await recording.written;
  });

  describe('in the local runtime', () => {
    let server: Server;
    let url: string;
    const exchanges: {
      request: WeakRef<object>;
      response: WeakRef<object>;
      closed: Promise<void>;
      ended: Promise<void>;
    }[] = [];
    const held = heldWork();

    beforeAll(async () => {
      // A streaming handler that answers at once and then works on, as a metered request does
      // (without keeping the stream itself, as the gateway's handlers do not).
      const handler: StreamingHandler = Object.assign(
        (_event: unknown, stream: Writable) => {
          stream.end('answered');
          return held.work();
        },
        { [Symbol.for('model-gateway.streaming-handler')]: true as const },
      );
      server = createServer((request, response) => {
        const exchange = whileOpen(request, response);
        const timed = { functionName: 'model-gateway-chat', requestId: 'req-retention', timeoutSeconds: 60 };
        const invocation = invokeHandler(handler, proxyEvent(), lambdaContextStub(), response);
        exchanges.push({
          request: new WeakRef(request),
          response: new WeakRef(response),
          closed: new Promise((resolve) => response.once('close', () => resolve())),
          ended: endOf(invocation, timed, exchange),
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      held.release();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('lets the HTTP request and response go once the response has closed', async () => {
      const answer = await fetch(url, { headers: { connection: 'close' } });
      expect(await answer.text()).toBe('answered');
      await held.running;
      const [exchange] = exchanges;
      await exchange!.closed;

      expect(await isCollected(exchange!.response)).toBe(true);
      expect(await isCollected(exchange!.request)).toBe(true);
      held.release();
      await exchange!.ended;
    });
  });
});
