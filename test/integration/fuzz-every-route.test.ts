import fc from 'fast-check';
import { Agent } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { routes, type RouteDefinition } from '../../functions/shared/routes.js';
import { captureOutput, type CapturedOutput } from '../support/captured-output.js';
import { isEnvelopeOfPath, pathOfTarget } from '../support/error-envelopes.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { hostileRequests, type HostileRequest } from '../support/fuzz/hostile-requests.js';
import { pathParameterSamples, sampleBody, type FuzzTargets } from '../support/fuzz/route-samples.js';
import { everyChangeOf } from '../support/fuzz/single-changes.js';
import { sendHostileRequest, type RawResponse } from '../support/fuzz/send-request.js';
import { addOfflineDemoChannel } from '../support/offline-demo-channel.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * Property: whatever a client sends to any route (method, path, query, headers, body), the gateway
 * answers below 500, in the path's own error envelope, with a request id, and never lets a key it
 * holds (admin, user, upstream channel) into an answer or a log line. Requests use the demo model and
 * a fake upstream that does not fail, so a 5xx can only be the gateway's own.
 */
const RUNS_PER_ROUTE_AND_KEY = Number(process.env.FUZZ_RUNS ?? 12);
/** Heap growth over the whole run, after a full collection, that would mean requests leak memory. */
const HEAP_GROWTH_LIMIT_BYTES = 96 * 1024 * 1024;
const CHANNEL_KEY = `sk-upstream-${'c'.repeat(40)}`;

let upstream: FakeUpstream;
let gateway: TestGateway;
let userKey: string;
let targets: FuzzTargets;
let output: CapturedOutput;
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

// A full collection before each heap reading, without a command-line flag.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const heapAfterCollection = () => {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
};

beforeAll(async () => {
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  const channel = await gateway.admin('PUT', '/admin/v1/channels/fuzz-upstream', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    apiKey: CHANNEL_KEY,
    models: ['relay-1'],
    endpoints: ['chat'],
  });
  if (channel.status !== 200) throw new Error(`channel setup failed: ${channel.text}`);
  // The samples ask for demo-1: without it every /v1 body would stop at model_not_found.
  await addOfflineDemoChannel(gateway);
  ({ key: userKey } = await gateway.createAccountWithKey());
  const target = await gateway.createAccountWithKey({ name: 'fuzz target' });
  targets = { accountId: target.account.id, keyId: target.keyId };
  output = captureOutput();
}, 60_000);

afterAll(async () => {
  output?.restore();
  agent.destroy();
  await gateway?.close();
  await upstream?.close();
});

const secrets = () => [gateway.adminKey, userKey, CHANNEL_KEY];

const describeFailure = (request: HostileRequest, response: RawResponse) =>
  `${request.method} ${request.target.slice(0, 200)} → ${response.status} ${response.body.toString('utf8').slice(0, 300)}`;

const checkAnswer = (request: HostileRequest, response: RawResponse): void => {
  const where = describeFailure(request, response);
  if (response.status >= 500) throw new Error(`5xx: ${where}`);
  const requestId = response.headers['x-request-id'];
  if (typeof requestId !== 'string' || requestId.length < 8) throw new Error(`no request id: ${where}`);
  const bytes = `${JSON.stringify(response.headers)}\n${response.body.toString('latin1')}`;
  for (const secret of secrets()) if (bytes.includes(secret)) throw new Error(`a key in the answer: ${where}`);
  if (response.status < 400 || request.method === 'HEAD') return;
  let body: unknown;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw new Error(`an error answer that is not JSON: ${where}`);
  }
  if (!isEnvelopeOfPath(pathOfTarget(request.target), response.status, body))
    throw new Error(`not the path's envelope: ${where}`);
};

/** The routes whose requests the chat-only channel of `relay-1` serves. */
const RELAYED_PATHS = new Set(['/v1/chat/completions', '/v1/messages', '/v1/messages/count_tokens', '/v1/responses']);

/** The key a request carries, by name, resolved once the gateway has made them. */
const keys = { admin: () => gateway.adminKey, user: () => userKey } as const;

describe('every route under hostile input', () => {
  let heapBefore = 0;

  beforeAll(() => {
    heapBefore = heapAfterCollection();
  });

  describe.each(Object.keys(keys) as (keyof typeof keys)[])('with the %s key', (keyName) => {
    it.each(routes.map((route) => [route.method, route.path, route] as const))(
      '%s %s answers below 500, in its envelope, with a request id, leaking no key',
      async (_method, _path, route) => {
        await fc.assert(
          fc.asyncProperty(hostileRequests(route, keys[keyName](), targets), async (request) => {
            checkAnswer(request, await sendHostileRequest(gateway.url, agent, request));
          }),
          { numRuns: RUNS_PER_ROUTE_AND_KEY, endOnFailure: true },
        );
      },
      60_000,
    );
  });

  /** The route's path with each of its parameters given each of their known values. */
  const knownPaths = (route: RouteDefinition, ids: FuzzTargets): string[] =>
    route.path
      .split('/')
      .slice(1)
      .reduce<string[]>(
        (paths, segment) => {
          const parameter = /^\{(.+)\}$/.exec(segment);
          const values = parameter ? pathParameterSamples(parameter[1]!, ids) : [segment];
          return paths.flatMap((path) => values.map((value) => `${path}/${encodeURIComponent(value)}`));
        },
        [''],
      );

  it.each(
    routes
      .filter((route) => sampleBody(route, { accountId: 'a', keyId: 'k' }) !== undefined)
      .map((route) => [route.method, route.path, route] as const),
  )(
    '%s %s answers its valid body with any one value changed or left out, every one in turn, as it answers any body',
    async (_method, _path, route) => {
      const key = route.path.startsWith('/admin/') ? gateway.adminKey : userKey;
      // Targets of its own: the random requests above may have deleted theirs.
      const made = await gateway.createAccountWithKey({ name: 'exhaustive target' });
      const ownTargets = { accountId: made.account.id, keyId: made.keyId };
      const faults: string[] = [];
      const statuses = new Set<number>();
      const sample = sampleBody(route, ownTargets)!;
      // A conversation is also sent for the relayed model, whose channel serves chat: translated and sent upstream.
      const samples = RELAYED_PATHS.has(route.path) ? [sample, { ...sample, model: 'relay-1' }] : [sample];
      for (const target of knownPaths(route, ownTargets))
        for (const body of samples.flatMap(everyChangeOf)) {
          const request: HostileRequest = {
            method: route.method,
            target,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
            body: Buffer.from(JSON.stringify(body) ?? ''),
          };
          try {
            const response = await sendHostileRequest(gateway.url, agent, request);
            statuses.add(response.status);
            checkAnswer(request, response);
          } catch (error) {
            if (faults.length < 5)
              faults.push(`${String(error)}\nsent ${request.body!.toString('utf8').slice(0, 300)}`);
          }
        }
      expect(faults).toEqual([]);
      // The changes reached past authentication: some bodies were served, some refused for what they hold.
      expect([...statuses].some((status) => status < 300)).toBe(true);
      expect([...statuses].some((status) => status >= 400)).toBe(true);
    },
    10 * 60_000,
  );

  it('never wrote a key to a log line', () => {
    const logged = output.text();
    for (const secret of secrets()) expect(logged.includes(secret)).toBe(false);
  });

  it('still serves a plain request afterwards', async () => {
    const response = await gateway.request('POST', '/v1/chat/completions', {
      key: userKey,
      body: { model: 'relay-1', messages: [{ role: 'user', content: 'still there?' }] },
    });
    expect(response.status).toBe(200);
  });

  it('holds no more memory than a bounded amount after all of it', () => {
    expect(heapAfterCollection() - heapBefore).toBeLessThan(HEAP_GROWTH_LIMIT_BYTES);
  });
});
