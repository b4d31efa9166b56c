import { itInProcess, runsRemotely } from '../support/gateway-target.js';
import { randomBytes } from 'node:crypto';
import { resetChannelHealth } from '../../functions/shared/routing/channel-health.js';
import type { EchoEventFormat } from '../support/fake-upstream/echo-events.js';
import type { FakeUpstream, Fault } from '../support/fake-upstream/fake-upstream.js';
import {
  captureProcessOutput,
  expectNoSecretIn,
  type CapturedOutput,
  type WatchedSecret,
} from '../support/secret-assertions.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { startUpstream } from '../support/upstream-target.js';

/**
 * Upstreams that quote the request they got (headers, URL, body: the channel's key with them) in
 * their errors, before the first byte and in the middle of a stream, for every channel type and
 * every client protocol: no piece of any key reaches the client's bytes or a log line, while the
 * rest of the upstream's message does.
 */

const base62 = (length: number) => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(length)].map((byte) => alphabet[byte % 62]).join('');
};

// Keys as the vendors shape them, the OpenAI one with characters that JSON and URLs escape.
const OPENAI_KEY = `sk-proj-${base62(24)}+/=${base62(24)}`;
const ANTHROPIC_KEY = `sk-ant-api03-${base62(40)}-${base62(20)}AA`;
const GEMINI_KEY = `AIza${base62(35)}`;
const AWS_ENVIRONMENT = {
  AWS_ACCESS_KEY_ID: `ASIA${base62(16).toUpperCase()}`,
  AWS_SECRET_ACCESS_KEY: `${base62(20)}/${base62(10)}+${base62(8)}`,
  AWS_SESSION_TOKEN: `IQoJb3JpZ2luX2VjE${base62(120)}/${base62(120)}+${base62(60)}==`,
  AWS_REGION: 'us-east-1',
};
const savedEnvironment = Object.fromEntries(Object.keys(AWS_ENVIRONMENT).map((name) => [name, process.env[name]]));

/** What the echo always starts with: proof that the upstream's own words did reach the client. */
const ECHO_MARKER = 'Incorrect API key provided';

type ChannelType = 'openai' | 'anthropic' | 'gemini' | 'bedrock';
type Protocol = 'chat' | 'messages' | 'responses' | 'gemini' | 'embeddings' | 'images' | 'speech';

const BEDROCK_UPSTREAM = 'anthropic.claude-echo-v1:0';
const GEMINI_UPSTREAM = 'gemini-echo';
const modelOf = (type: ChannelType) => `echo-${type}`;

/** A whole error answer on each wire, as its own parser reads it (Bedrock names its exception in a header). */
const echoStatus = (type: ChannelType, status: 400 | 500): Fault => ({
  kind: 'echo',
  status,
  headers:
    type === 'bedrock'
      ? { 'x-amzn-errortype': status === 400 ? 'ValidationException' : 'InternalServerException' }
      : {},
});

/** The upstream wire's format of an error event, for this channel type and client protocol. */
const echoEventFormat = (type: ChannelType, protocol: Protocol): EchoEventFormat =>
  type === 'openai' ? (protocol === 'responses' ? 'openai-responses' : 'openai-chat') : type;

/** An error event in the middle of a stream, in the format of the upstream's wire for this call. */
const echoMidStream = (type: ChannelType, protocol: Protocol): Fault => ({
  kind: 'echo-mid-stream',
  afterEvents: 2,
  event: echoEventFormat(type, protocol),
});

const PROMPT = 'hello echo';

/** The request a client of each protocol sends, by hand, so that every byte of the answer is seen. */
const clientRequest = (
  protocol: Protocol,
  model: string,
  stream: boolean,
  key: string,
): { path: string; headers: Record<string, string>; body: unknown } => {
  const bearer = { authorization: `Bearer ${key}` };
  switch (protocol) {
    case 'chat':
      return {
        path: '/v1/chat/completions',
        headers: bearer,
        body: { model, stream, messages: [{ role: 'user', content: PROMPT }] },
      };
    case 'messages':
      return {
        path: '/v1/messages',
        headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: { model, stream, max_tokens: 50, messages: [{ role: 'user', content: PROMPT }] },
      };
    case 'responses':
      return { path: '/v1/responses', headers: bearer, body: { model, stream, input: PROMPT } };
    case 'gemini':
      return {
        path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        headers: { 'x-goog-api-key': key },
        body: { contents: [{ role: 'user', parts: [{ text: PROMPT }] }] },
      };
    case 'embeddings':
      return { path: '/v1/embeddings', headers: bearer, body: { model, input: PROMPT } };
    case 'images':
      return { path: '/v1/images/generations', headers: bearer, body: { model, prompt: PROMPT } };
    case 'speech':
      return { path: '/v1/audio/speech', headers: bearer, body: { model, input: PROMPT, voice: 'alloy' } };
  }
};

const CONVERSATION_PROTOCOLS: Protocol[] = ['chat', 'messages', 'responses', 'gemini'];
const cases: Array<[Protocol, ChannelType]> = [
  ...CONVERSATION_PROTOCOLS.flatMap((protocol) =>
    (['openai', 'anthropic', 'gemini', 'bedrock'] as const).map((type): [Protocol, ChannelType] => [protocol, type]),
  ),
  ['embeddings', 'openai'],
  ['images', 'openai'],
  ['speech', 'openai'],
];

let gateway: TestGateway;
let userKey: string;
let upstreams: Record<ChannelType, FakeUpstream>;
let output: CapturedOutput;
let secrets: WatchedSecret[];

beforeAll(async () => {
  Object.assign(process.env, AWS_ENVIRONMENT);
  output = captureProcessOutput();
  upstreams = {
    openai: await startUpstream(
      { wire: 'openai' },
      { wire: 'openai-responses' },
      { wire: 'openai-embeddings' },
      { wire: 'openai-images' },
      { wire: 'openai-speech' },
    ),
    anthropic: await startUpstream({ wire: 'anthropic' }),
    gemini: await startUpstream({ wire: 'gemini', upstreamModel: GEMINI_UPSTREAM }),
    bedrock: await startUpstream({ wire: 'bedrock', upstreamModel: BEDROCK_UPSTREAM }),
  };
  gateway = await startTestGateway();
  const channels: Record<ChannelType, Record<string, unknown>> = {
    openai: { baseUrl: upstreams.openai.baseUrl, apiKey: OPENAI_KEY },
    anthropic: { baseUrl: upstreams.anthropic.origin, apiKey: ANTHROPIC_KEY },
    gemini: {
      baseUrl: upstreams.gemini.origin,
      apiKey: GEMINI_KEY,
      modelMap: { [modelOf('gemini')]: GEMINI_UPSTREAM },
    },
    bedrock: { baseUrl: upstreams.bedrock.origin, modelMap: { [modelOf('bedrock')]: BEDROCK_UPSTREAM } },
  };
  for (const [type, fields] of Object.entries(channels)) {
    const created = await gateway.admin('PUT', `/admin/v1/channels/echo-${type}`, {
      type,
      models: [modelOf(type as ChannelType)],
      timeouts: { firstByteMs: 5000, idleMs: 2000 },
      ...fields,
    });
    if (created.status !== 200) throw new Error(`channel setup failed: ${created.text}`);
  }
  ({ key: userKey } = await gateway.createAccountWithKey());
  secrets = [
    { name: 'the openai channel key', value: OPENAI_KEY },
    { name: 'the anthropic channel key', value: ANTHROPIC_KEY },
    { name: 'the gemini channel key', value: GEMINI_KEY },
    { name: 'AWS_ACCESS_KEY_ID', value: AWS_ENVIRONMENT.AWS_ACCESS_KEY_ID },
    { name: 'AWS_SECRET_ACCESS_KEY', value: AWS_ENVIRONMENT.AWS_SECRET_ACCESS_KEY },
    { name: 'AWS_SESSION_TOKEN', value: AWS_ENVIRONMENT.AWS_SESSION_TOKEN },
    { name: 'the client key', value: userKey, visiblePrefix: 10 },
    { name: 'the admin key', value: gateway.adminKey, visiblePrefix: 10 },
  ];
});

afterAll(async () => {
  output?.stop();
  await gateway?.close();
  await Promise.all(Object.values(upstreams ?? {}).map((upstream) => upstream.close()));
  for (const [name, value] of Object.entries(savedEnvironment)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

beforeEach(async () => {
  resetChannelHealth();
  await Promise.all(Object.values(upstreams).map((upstream) => upstream.clearFaults()));
});

/** Sends one client request with a fault injected upstream; the status and every byte of the answer. */
const callWith = async (protocol: Protocol, type: ChannelType, stream: boolean, fault: Fault) => {
  const upstream = upstreams[type];
  const receivedBefore = (await upstream.receivedRequests()).length;
  await upstream.inject(fault);
  const { path, headers, body } = clientRequest(protocol, modelOf(type), stream, userKey);
  const response = await fetch(`${gateway.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  // The fault was taken by this request: the answer is the echo's, not a leftover.
  expect((await upstream.receivedRequests()).length).toBe(receivedBefore + 1);
  return { status: response.status, text };
};

const expectCleanEcho = (text: string, where: string) => {
  expect(text).toContain(ECHO_MARKER);
  expectNoSecretIn(text, secrets, where);
};

describe.each(cases)(
  '%s clients of the %s channel, whose upstream echoes the request in its errors,',
  (protocol, type) => {
    const streams = CONVERSATION_PROTOCOLS.includes(protocol);

    test.each([400, 500] as const)('get the error envelope of an upstream %i with no key in it', async (status) => {
      const answer = await callWith(protocol, type, false, echoStatus(type, status));

      expect(answer.status).toBe(status === 400 ? 400 : 502);
      expectCleanEcho(answer.text, `the answer to ${protocol} on ${type}`);
    });

    if (!streams) return;

    test('get the error envelope of a stream refused before its first byte, with no key in it', async () => {
      const answer = await callWith(protocol, type, true, echoStatus(type, 500));

      expect(answer.status).toBe(502);
      expectCleanEcho(answer.text, `the streamed answer to ${protocol} on ${type}`);
    });

    test('get an error event with no key in it when the stream fails after its first byte', async () => {
      const answer = await callWith(protocol, type, true, echoMidStream(type, protocol));

      expect(answer.status).toBe(200);
      expect(answer.text.indexOf(ECHO_MARKER)).toBeGreaterThan(answer.text.indexOf('data:'));
      expectCleanEcho(answer.text, `the stream of ${protocol} on ${type}`);
    });
  },
);

test('the upstream did receive the keys, so the checks above had something to find', async () => {
  const received = await Promise.all(Object.values(upstreams).map((upstream) => upstream.receivedRequests()));
  const sent = received
    .flat()
    .map((request) => JSON.stringify(request.headers))
    .join('\n');

  // A gateway in another process signs Bedrock calls with its own AWS credentials, not this test's.
  const sessionToken = runsRemotely ? [] : [AWS_ENVIRONMENT.AWS_SESSION_TOKEN];
  for (const key of [OPENAI_KEY, ANTHROPIC_KEY, GEMINI_KEY, ...sessionToken]) expect(sent).toContain(key);
});

itInProcess('reads the log lines the gateway writes in this process')(
  'no log line written meanwhile holds a piece of any key, and the upstream errors were logged',
  () => {
    const logged = output.text();

    expect(logged).toContain(ECHO_MARKER);
    expectNoSecretIn(logged, secrets, 'the log');
    for (const line of logged.split('\n').filter((line) => line.startsWith('{')))
      expect(() => JSON.parse(line)).not.toThrow();
  },
);
