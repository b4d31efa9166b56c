import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dynamoDbHostStore } from '../support/fake-upstream/dynamodb-host-store.js';
import { fakeHost } from '../support/fake-upstream/fake-host.js';
import { memoryHostStore, type FakeHostStore } from '../support/fake-upstream/fake-host-store.js';
import { startLocalSessionsTable } from '../support/fake-upstream/fake-sessions-table.js';
import { bedrockExceptionFrame } from '../support/fake-upstream/bedrock-wire.js';
import { openRemoteFakeUpstream } from '../support/fake-upstream/remote-fake-upstream.js';

const TOKEN = 'control-token-0123456789abcdef';

const listen = async (store: FakeHostStore): Promise<{ url: string; server: Server }> => {
  const server = createServer(fakeHost(store, TOKEN));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
};

const close = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

const chat = (baseUrl: string, content: string) =>
  fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-upstream' },
    body: JSON.stringify({ model: 'upstream-model', messages: [{ role: 'user', content }] }),
  });

/** The same cases for each way a host keeps its sessions: the table is what the Lambda function uses. */
describe.each([
  ['in memory', async () => ({ stores: [memoryHostStore()], close: async () => {} })],
  [
    'in a DynamoDB table, two instances sharing it',
    async () => {
      const table = await startLocalSessionsTable();
      const store = () => dynamoDbHostStore(table.client, table.tableName);
      return { stores: [store(), store()], close: () => table.store.close() };
    },
  ],
] as const)('the fake upstream host, sessions %s', (_name, makeStores) => {
  let hosts: Array<{ url: string; server: Server }>;
  let closeStores: () => Promise<void>;

  beforeAll(async () => {
    const made = await makeStores();
    closeStores = made.close;
    hosts = await Promise.all(made.stores.map(listen));
  });
  afterAll(async () => {
    await Promise.all(hosts.map(({ server }) => close(server)));
    await closeStores();
  });
  /** The last host when there are two: what one instance was told, another must serve. */
  const servingHost = () => hosts.at(-1)!;

  it('refuses the control API without the token, and unknown wires or faults with a 400', async () => {
    const [host] = hosts;
    const open = (authorization: string | undefined, body: unknown) =>
      fetch(`${host!.url}/control/sessions`, {
        method: 'POST',
        headers: authorization ? { authorization } : {},
        body: JSON.stringify(body),
      });
    expect((await open(undefined, { wires: [{ wire: 'openai' }] })).status).toBe(401);
    expect((await open(`Bearer ${TOKEN}x`, { wires: [{ wire: 'openai' }] })).status).toBe(401);
    expect((await open(`Bearer ${TOKEN}`, { wires: [{ wire: 'smtp' }] })).status).toBe(400);
    expect((await open(`Bearer ${TOKEN}`, { wires: [{ wire: 'bedrock' }] })).status).toBe(400);
    const upstream = await openRemoteFakeUpstream({ url: host!.url, token: TOKEN }, [{ wire: 'openai' }]);
    const id = upstream.origin.split('/').at(-2);
    const badFault = await fetch(`${host!.url}/control/sessions/${id}/faults`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ faults: [{ kind: 'delay', ms: -1 }] }),
    });
    expect(badFault.status).toBe(400);
    await upstream.close();
  });

  it('answers only under a session it handed out', async () => {
    const answer = await fetch(`${servingHost().url}/sessions/00000000-0000-4000-8000-000000000000/fake/v1/models`);
    expect(answer.status).toBe(404);
  });

  it('serves queued faults once each, in order, whichever instance takes the request', async () => {
    const upstream = await openRemoteFakeUpstream({ url: hosts[0]!.url, token: TOKEN }, [{ wire: 'openai' }]);
    const served = await openRemoteFakeUpstream({ url: servingHost().url, token: TOKEN }, [{ wire: 'openai' }]);
    try {
      await upstream.inject({ kind: 'status', status: 503 }, { kind: 'status', status: 429 });
      // Another session's faults are its own.
      await served.inject({ kind: 'status', status: 418 });
      const onServingHost = upstream.baseUrl.replace(hosts[0]!.url, servingHost().url);
      expect((await chat(onServingHost, 'one')).status).toBe(503);
      expect((await chat(upstream.baseUrl, 'two')).status).toBe(429);
      const third = await chat(onServingHost, 'three');
      expect(third.status).toBe(200);
      expect(((await third.json()) as any).choices[0].message.content).toBe('Echo: three');
      const received = await upstream.receivedRequests();
      expect(received.map((request) => request.body.messages[0].content)).toEqual(['one', 'two', 'three']);
      expect(received[0]).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
      expect(received[0]!.headers.authorization).toBe('Bearer sk-upstream');
      expect(() => upstream.received).toThrow(/receivedRequests/);
    } finally {
      await upstream.close();
      await served.close();
    }
  });

  it('drops faults no request took when told to', async () => {
    const upstream = await openRemoteFakeUpstream({ url: servingHost().url, token: TOKEN }, [{ wire: 'openai' }]);
    await upstream.inject({ kind: 'status', status: 500 });
    await upstream.clearFaults();
    expect((await chat(upstream.baseUrl, 'hello')).status).toBe(200);
    await upstream.close();
  });

  it('carries a byte-framed error event to a Bedrock stream, and streams event by event', async () => {
    const upstream = await openRemoteFakeUpstream({ url: servingHost().url, token: TOKEN }, [
      { wire: 'bedrock', upstreamModel: 'vendor.model-v1' },
    ]);
    const frame = bedrockExceptionFrame('throttlingException', 'slow down');
    await upstream.inject({ kind: 'error-mid-stream', afterEvents: 1, event: frame });
    const answer = await fetch(`${upstream.origin}/model/vendor.model-v1/converse-stream`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] }),
    });
    const bytes = Buffer.from(await answer.arrayBuffer());
    expect(answer.status).toBe(200);
    expect(bytes.subarray(bytes.length - frame.length).equals(Buffer.from(frame))).toBe(true);
    await upstream.close();
  });

  it('counts a caller that goes away mid-stream', async () => {
    const upstream = await openRemoteFakeUpstream({ url: servingHost().url, token: TOKEN }, [{ wire: 'openai' }]);
    await upstream.inject({ kind: 'stall-mid-stream', afterEvents: 1 });
    const caller = new AbortController();
    const answer = await fetch(`${upstream.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      signal: caller.signal,
    });
    await answer.body!.getReader().read();
    caller.abort();
    for (let count = 0; count === 0; count = await upstream.abortedCount())
      await new Promise((resolve) => setImmediate(resolve));
    expect(await upstream.abortedCount()).toBe(1);
    await upstream.close();
  });

  it('builds a named echo event from the request it received, in the middle of the stream', async () => {
    const upstream = await openRemoteFakeUpstream({ url: servingHost().url, token: TOKEN }, [{ wire: 'openai' }]);
    await upstream.inject({ kind: 'echo-mid-stream', afterEvents: 2, event: 'openai-chat' });
    const answer = await fetch(`${upstream.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-echoed-key' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }),
    });
    const events = (await answer.text()).split('\n\n').filter(Boolean);
    expect(events).toHaveLength(3);
    const error = JSON.parse(events[2]!.replace(/^data: /, '')).error;
    expect(error.message).toContain('Incorrect API key provided: sk-echoed-key.');
    await upstream.close();
  });

  it('refuses a fault that is computed in the test, before sending anything', async () => {
    const upstream = await openRemoteFakeUpstream({ url: servingHost().url, token: TOKEN }, [{ wire: 'openai' }]);
    await expect(upstream.inject({ kind: 'echo-mid-stream', afterEvents: 1, event: (echo) => echo })).rejects.toThrow(
      /only a fake in this process takes it/,
    );
    await upstream.close();
  });
});
