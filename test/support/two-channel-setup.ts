import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { resetChannelHealth } from '../../functions/shared/routing/channel-health.js';
import { anthropicRoutes } from './fake-upstream/anthropic-wire.js';
import { startFakeUpstream, type FakeUpstream, type Fault, type WireRoute } from './fake-upstream/fake-upstream.js';
import { geminiRoutes } from './fake-upstream/gemini-wire.js';
import { openAiRoutes } from './fake-upstream/openai-wire.js';
import { runsRemotely } from './gateway-target.js';
import { startTestGateway, type TestGateway } from './test-gateway.js';
import { waitFor } from './wait-for.js';

/**
 * The fault-injection fixture: a public model served by two channels, each on its own fake upstream
 * (so a fault reaches one channel only), the first at a higher priority, and a model with a single
 * channel. Timeouts are short so that every scenario is fast.
 * `describeFailover` runs the same scenarios through any of the three official SDKs.
 */

/** The client-facing API family, and the type of the channels behind it (native, no translation). */
export type Wire = 'openai' | 'anthropic' | 'gemini';

export const TIMEOUTS = { connectMs: 500, firstByteMs: 600, idleMs: 400 } as const;
/** Scheduling slack allowed on top of a timeout before a scenario counts as too slow. */
export const MARGIN_MS = 500;
/** How long a close may take to reach the fake on a loaded machine; an unclosed call finishes unaborted instead. */
const ABORT_SEEN_WITHIN_MS = 5000;

export const PAIR_MODEL = 'pair-model';
export const SOLO_MODEL = 'solo-model';
const UPSTREAM_MODEL = 'upstream-model';

/** What every scenario asks, and what the fakes answer to it. */
export const PROMPT = 'hello there friend';
export const ANSWER = `Echo: ${PROMPT}`;

interface WireSpec {
  readonly routes: Record<string, WireRoute>;
  readonly baseUrl: (upstream: FakeUpstream) => string;
  /** The request the SDK sends, by hand: for asserting status lines, headers and SSE framing. */
  readonly raw: (
    model: string,
    stream: boolean,
    key: string,
  ) => { path: string; headers: Record<string, string>; body: unknown };
  /** One error event on this format's wire (global: to count them). */
  readonly errorEvent: RegExp;
}

const wires: Record<Wire, WireSpec> = {
  openai: {
    routes: openAiRoutes,
    baseUrl: (upstream) => upstream.baseUrl,
    raw: (model, stream, key) => ({
      path: '/v1/chat/completions',
      headers: { authorization: `Bearer ${key}` },
      body: { model, stream, messages: [{ role: 'user', content: PROMPT }] },
    }),
    errorEvent: /^data: \{"error":\{"message":"[^\n]*\n\n/gm,
  },
  anthropic: {
    routes: anthropicRoutes,
    baseUrl: (upstream) => upstream.origin,
    raw: (model, stream, key) => ({
      path: '/v1/messages',
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      body: { model, stream, max_tokens: 100, messages: [{ role: 'user', content: PROMPT }] },
    }),
    errorEvent: /^event: error\ndata: \{"type":"error","error":\{[^\n]*\n\n/gm,
  },
  gemini: {
    routes: geminiRoutes(UPSTREAM_MODEL),
    baseUrl: (upstream) => upstream.origin,
    raw: (model, stream, key) => ({
      path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
      headers: { 'x-goog-api-key': key },
      body: { contents: [{ role: 'user', parts: [{ text: PROMPT }] }] },
    }),
    errorEvent: /^data: \{"error":\{"code":\d+[^\n]*\n\n/gm,
  },
};

/** The fields of `GET /admin/v1/usage` records the scenarios look at. */
export interface UsageView {
  readonly channelId: string | null;
  readonly attempts: number;
  readonly status: string;
  readonly httpStatus: number;
  readonly stream: boolean;
}

/** A fresh account and key: a scenario's usage records are then its own. */
export interface Caller {
  readonly key: string;
  /** The scenario's request without an SDK. */
  raw(model: string, stream: boolean, signal?: AbortSignal): Promise<Response>;
  /** The one usage record of this caller, once it is written. */
  usageRecord(): Promise<UsageView>;
}

export interface TwoChannelSetup {
  readonly gateway: TestGateway;
  /** Upstream of channel `first` (priority 10) of PAIR_MODEL. */
  readonly first: FakeUpstream;
  /** Upstream of channel `second` (priority 0) of PAIR_MODEL. */
  readonly second: FakeUpstream;
  /** Upstream of channel `solo`, the only one of SOLO_MODEL. */
  readonly solo: FakeUpstream;
  newCaller(): Promise<Caller>;
  /** Points channel `first` at an address where nothing listens; `restore` points it back. */
  takeFirstOffline(): Promise<{ restore(): Promise<void> }>;
  close(): Promise<void>;
}

/** A loopback address where nothing listens: a port taken and let go. */
const closedAddress = async (): Promise<string> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
};

/**
 * The client leaves shortly after the upstream has the request (not after a fixed time: on a busy
 * machine the request might not have reached it yet, and the test would then prove nothing).
 */
const leaveOnceReceived = (upstream: FakeUpstream, client: AbortController): void => {
  const receivedBefore = upstream.received.length;
  void waitFor(() => upstream.received.length > receivedBefore).then(
    () => setTimeout(() => client.abort(), 50),
    () => client.abort(),
  );
};

/** Starts the fakes, the gateway and the channels for one wire format. */
export const startTwoChannelSetup = async (wire: Wire): Promise<TwoChannelSetup> => {
  const spec = wires[wire];
  const [first, second, solo] = await Promise.all([0, 1, 2].map(() => startFakeUpstream(spec.routes)));
  const gateway = await startTestGateway();
  const channel = (id: string, upstream: FakeUpstream, models: string[], more: object = {}) =>
    gateway.admin('PUT', `/admin/v1/channels/${id}`, {
      type: wire,
      baseUrl: spec.baseUrl(upstream),
      apiKey: `upstream-key-of-${id}`,
      models,
      modelMap: Object.fromEntries(models.map((model) => [model, UPSTREAM_MODEL])),
      timeouts: TIMEOUTS,
      ...more,
    });
  const created = await Promise.all([
    channel('first', first!, [PAIR_MODEL], { priority: 10 }),
    channel('second', second!, [PAIR_MODEL], { priority: 0 }),
    channel('solo', solo!, [SOLO_MODEL]),
  ]);
  for (const result of created) if (result.status !== 200) throw new Error(`channel setup failed: ${result.text}`);

  const newCaller = async (): Promise<Caller> => {
    const { key, account } = await gateway.createAccountWithKey();
    const records = async (): Promise<UsageView[]> =>
      (await gateway.admin('GET', `/admin/v1/usage?accountId=${account.id}`)).body.data;
    return {
      key,
      raw: (model, stream, signal) => {
        const { path, headers, body } = spec.raw(model, stream, key);
        return fetch(`${gateway.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
          signal,
        });
      },
      usageRecord: async () => {
        await waitFor(async () => (await records()).length > 0);
        const all = await records();
        if (all.length !== 1) throw new Error(`expected one usage record, found ${all.length}`);
        return all[0]!;
      },
    };
  };

  return {
    gateway,
    first: first!,
    second: second!,
    solo: solo!,
    newCaller,
    takeFirstOffline: async () => {
      const offline = await channel('first', first!, [PAIR_MODEL], {
        priority: 10,
        baseUrl: `${await closedAddress()}/v1`,
      });
      if (offline.status !== 200) throw new Error(`channel update failed: ${offline.text}`);
      return {
        restore: async () => {
          await channel('first', first!, [PAIR_MODEL], { priority: 10 });
        },
      };
    },
    close: async () => {
      await gateway.close();
      await Promise.all([first, second, solo].map((upstream) => upstream!.close()));
    },
  };
};

/** The gateway's codes for a request no channel could serve (DESIGN §3.4). */
export type UpstreamFailureCode = 'upstream_error' | 'upstream_timeout' | 'no_channel';

export interface AskOptions {
  readonly stream: boolean;
  readonly signal?: AbortSignal;
  /** Called for each chunk or event the SDK yields, before the next is read. */
  readonly onChunk?: () => void;
}

/** One official SDK, pointed at the gateway with its own retries off. */
export interface SdkUnderTest {
  /** Sends PROMPT to the model; resolves with the answer's text, rejects with the SDK's own error. */
  ask(model: string, options: AskOptions): Promise<string>;
  /**
   * Asserts that `error` is the SDK's error for the gateway's envelope: `midStream` when it arrived
   * as an error event after the answer had started (no HTTP status then, for some SDKs).
   */
  expectGatewayError(
    error: unknown,
    expected: { status: number; code: UpstreamFailureCode; midStream?: boolean },
  ): void;
}

const status429 = (retryAfterSeconds: number): Fault => ({
  kind: 'status',
  status: 429,
  headers: { 'retry-after': String(retryAfterSeconds) },
  body: { error: { message: 'slow down', type: 'rate_limit_error' } },
});

/** First-channel failures before the first byte after which the second channel must answer. */
const failuresBeforeFirstByte: Array<[string, Fault]> = [
  ['returns 500', { kind: 'status', status: 500 }],
  ['resets the connection', { kind: 'reset' }],
];

const timed = async <T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> => {
  const started = performance.now();
  const result = await work();
  return { result, ms: performance.now() - started };
};

/** The error a promise rejects with; a resolved promise fails the test. */
const rejection = (work: () => Promise<unknown>): Promise<unknown> =>
  work().then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );

/**
 * Registers the failover scenarios for one SDK (DESIGN §4; issue "Routing and resilience", item 6):
 * with one of two channels broken the client sees a normal answer, with both broken a clear error
 * within the timeouts, and a stream broken after its first byte ends with one error event.
 */
export const describeFailover = (wire: Wire, connect: (key: string, gatewayUrl: string) => SdkUnderTest): void => {
  if (runsRemotely) {
    // Each scenario starts from healthy channels, which only the gateway's own process can reset.
    it.skip(`${wire} failover scenarios [in-process only: channel cooldowns are reset between scenarios]`, () =>
      undefined);
    return;
  }
  let setup: TwoChannelSetup;
  let caller: Caller;
  let sdk: SdkUnderTest;

  beforeAll(async () => {
    setup = await startTwoChannelSetup(wire);
  });
  afterAll(async () => {
    await setup?.close();
  });
  beforeEach(async () => {
    // Channel health is per instance (here: per test file): no scenario inherits another's cooldowns.
    resetChannelHealth();
    for (const upstream of [setup.first, setup.second, setup.solo]) upstream.clearFaults();
    caller = await setup.newCaller();
    sdk = connect(caller.key, setup.gateway.url);
  });

  describe.each([
    ['whole', false],
    ['streamed', true],
  ])('a %s answer', (_name, stream) => {
    it.each(failuresBeforeFirstByte)(
      'comes from the second channel when the first %s, recorded as its second attempt',
      async (_fault, fault) => {
        setup.first.inject(fault);

        const text = await sdk.ask(PAIR_MODEL, { stream });

        expect(text).toBe(ANSWER);
        expect(await caller.usageRecord()).toMatchObject({
          channelId: 'second',
          attempts: 2,
          status: 'success',
          stream,
        });
      },
    );

    it('comes from the second channel when nothing listens at the first one’s address', async () => {
      const offline = await setup.takeFirstOffline();
      try {
        const text = await sdk.ask(PAIR_MODEL, { stream });

        expect(text).toBe(ANSWER);
        expect(await caller.usageRecord()).toMatchObject({
          channelId: 'second',
          attempts: 2,
          status: 'success',
          stream,
        });
      } finally {
        await offline.restore();
      }
    });

    it('comes from the second channel at once when the first asks to retry in 5 s, and so does the next one', async () => {
      // Waiting out the Retry-After would take 5 s; going to the second channel takes a request's time,
      // which on a loaded machine can pass a second, so the bound sits between the two.
      setup.first.inject(status429(5));

      const { result: text, ms } = await timed(() => sdk.ask(PAIR_MODEL, { stream }));
      const firstCalls = setup.first.received.length;
      const next = await sdk.ask(PAIR_MODEL, { stream });

      expect(text).toBe(ANSWER);
      expect(ms).toBeLessThan(4000);
      expect(next).toBe(ANSWER);
      expect(setup.first.received).toHaveLength(firstCalls);
    });

    it('comes from the second channel once the first stayed silent for firstByteMs, no later', async () => {
      setup.first.inject({ kind: 'delay', ms: TIMEOUTS.firstByteMs + 400 });

      const { result: text, ms } = await timed(() => sdk.ask(PAIR_MODEL, { stream }));

      expect(text).toBe(ANSWER);
      expect(ms).toBeGreaterThanOrEqual(TIMEOUTS.firstByteMs - 20);
      expect(ms).toBeLessThan(TIMEOUTS.firstByteMs + MARGIN_MS);
    });

    it('fails at once with one 502 upstream_error when both channels fail', async () => {
      setup.first.inject({ kind: 'status', status: 500 });
      setup.second.inject({ kind: 'status', status: 503 });

      const { result: error, ms } = await timed(() => rejection(() => sdk.ask(PAIR_MODEL, { stream })));

      sdk.expectGatewayError(error, { status: 502, code: 'upstream_error' });
      expect(ms).toBeLessThan(MARGIN_MS);
    });

    it('fails with 504 upstream_timeout within two first-byte timeouts when both channels are silent', async () => {
      // Each channel would answer 5 s late: waiting for either would pass the bound by far, while a
      // loaded machine's extra second or so stays within it.
      setup.first.inject({ kind: 'delay', ms: TIMEOUTS.firstByteMs + 5_000 });
      setup.second.inject({ kind: 'delay', ms: TIMEOUTS.firstByteMs + 5_000 });

      const { result: error, ms } = await timed(() => rejection(() => sdk.ask(PAIR_MODEL, { stream })));

      sdk.expectGatewayError(error, { status: 504, code: 'upstream_timeout' });
      expect(ms).toBeLessThan(2 * TIMEOUTS.firstByteMs + 2_000);
    });

    it('comes after the wait a lone channel asked for (429, Retry-After: 1)', async () => {
      setup.solo.inject(status429(1));

      const { result: text, ms } = await timed(() => sdk.ask(SOLO_MODEL, { stream }));

      expect(text).toBe(ANSWER);
      expect(ms).toBeGreaterThanOrEqual(950);
      expect(ms).toBeLessThan(1000 + MARGIN_MS);
      expect(await caller.usageRecord()).toMatchObject({ channelId: 'solo', attempts: 2, status: 'success' });
    });

    it("is a 429 carrying the lone channel's long Retry-After (60 s) for the client to decide", async () => {
      setup.solo.inject(status429(60));

      const response = await caller.raw(SOLO_MODEL, stream);

      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('60');
    });

    it('is given up upstream at once when the client goes away', async () => {
      // Whole: the upstream is still thinking (under firstByteMs). Streamed: it is between two events.
      setup.first.inject(
        stream ? { kind: 'slow-stream', gapMs: 300 } : { kind: 'delay', ms: TIMEOUTS.firstByteMs - 100 },
      );
      const abortedBefore = setup.first.abortedByClient;
      const client = new AbortController();
      leaveOnceReceived(setup.first, client);

      // Whether the SDK throws or ends the stream quietly on an abort is its own business.
      await sdk.ask(PAIR_MODEL, { stream, signal: client.signal }).catch(() => undefined);

      // A call left open would finish on its own and never count as aborted: the bound only caps the wait.
      await waitFor(() => setup.first.abortedByClient > abortedBefore, ABORT_SEEN_WITHIN_MS);
      expect(await caller.usageRecord()).toMatchObject({ channelId: 'first', status: 'client_aborted' });
    });
  });

  it('closes the upstream at once and records the request as given up when the client leaves a stream before its first byte', async () => {
    setup.first.inject({ kind: 'delay', ms: TIMEOUTS.firstByteMs - 100 });
    const abortedBefore = setup.first.abortedByClient;
    const secondCallsBefore = setup.second.received.length;
    const client = new AbortController();
    leaveOnceReceived(setup.first, client);

    await sdk.ask(PAIR_MODEL, { stream: true, signal: client.signal }).catch(() => undefined);

    // The call was closed while the upstream was still thinking: one left open would finish unaborted.
    await waitFor(() => setup.first.abortedByClient > abortedBefore, ABORT_SEEN_WITHIN_MS);
    expect(await caller.usageRecord()).toMatchObject({ channelId: 'first', status: 'client_aborted', stream: true });
    expect(setup.second.received.length).toBe(secondCallsBefore);
  });

  describe('a streamed answer broken after its first byte', () => {
    it('ends with an error when the upstream cuts it mid-way, and is recorded as failed', async () => {
      setup.first.inject({ kind: 'cut-mid-stream', afterEvents: 3 });
      const secondCalls = setup.second.received.length;
      let chunks = 0;

      const error = await rejection(() => sdk.ask(PAIR_MODEL, { stream: true, onChunk: () => (chunks += 1) }));

      expect(chunks).toBeGreaterThan(0);
      sdk.expectGatewayError(error, { status: 502, code: 'upstream_error', midStream: true });
      expect(await caller.usageRecord()).toMatchObject({
        channelId: 'first',
        attempts: 1,
        status: 'upstream_error',
        stream: true,
      });
      expect(setup.second.received).toHaveLength(secondCalls);
    });

    it('carries exactly one error event on the wire, last, after the events already sent', async () => {
      setup.first.inject({ kind: 'cut-mid-stream', afterEvents: 3 });

      const response = await caller.raw(PAIR_MODEL, true);
      const text = await response.text();

      expect(response.status).toBe(200);
      const errors = [...text.matchAll(wires[wire].errorEvent)];
      expect(errors).toHaveLength(1);
      expect(errors[0]!.index).toBeGreaterThan(0);
      expect(text.endsWith(errors[0]![0])).toBe(true);
    });

    it('is not cut when slow but alive (every gap under idleMs, the whole longer)', async () => {
      setup.first.inject({ kind: 'slow-stream', gapMs: TIMEOUTS.idleMs / 2 });

      const { result: text, ms } = await timed(() => sdk.ask(PAIR_MODEL, { stream: true }));

      expect(text).toBe(ANSWER);
      expect(ms).toBeGreaterThan(TIMEOUTS.idleMs);
    });

    it('ends with a timeout error within idleMs when the upstream stalls, and is recorded', async () => {
      setup.first.inject({ kind: 'stall-mid-stream', afterEvents: 2 });

      const { result: error, ms } = await timed(() => rejection(() => sdk.ask(PAIR_MODEL, { stream: true })));

      sdk.expectGatewayError(error, { status: 504, code: 'upstream_timeout', midStream: true });
      expect(ms).toBeGreaterThanOrEqual(TIMEOUTS.idleMs - 20);
      expect(ms).toBeLessThan(TIMEOUTS.idleMs + MARGIN_MS);
      expect(await caller.usageRecord()).toMatchObject({ channelId: 'first', status: 'upstream_error', stream: true });
    });
  });
};
