import fc from 'fast-check';
import { Agent } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { routes } from '../../functions/shared/routes.js';
import { captureOutput, type CapturedOutput } from '../support/captured-output.js';
import { isEnvelopeOfPath, pathOfTarget } from '../support/error-envelopes.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { hostileRequests, type HostileRequest } from '../support/fuzz/hostile-requests.js';
import type { FuzzTargets } from '../support/fuzz/route-samples.js';
import { sendHostileRequest, type RawResponse } from '../support/fuzz/send-request.js';
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
