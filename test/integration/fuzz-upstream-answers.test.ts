import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { resetChannelHealth } from '../../functions/shared/routing/channel-health.js';
import { isEnvelopeOfPath } from '../support/error-envelopes.js';
import { describeInProcess } from '../support/gateway-target.js';
import {
  everySingleChange,
  hostileUpstreamAnswer,
  type UpstreamAnswer,
  type UpstreamWire,
} from '../support/fuzz/hostile-upstream-answers.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { setFakeAwsCredentials } from '../support/fake-aws-credentials.js';

/**
 * Property: whatever an upstream answers (a well-formed answer with a hostile value or a member
 * missing, an event stream reshaped or cut, any status, any content type, any bytes), a client of
 * any of the four chat protocols, of token counts, embeddings, images or speech, relayed or translated to any
 * upstream wire, gets an answer in its own protocol: a 200 whose body is JSON (audio, for speech), or
 * whose events each carry JSON; or an error below 500 or from the upstream's range (502–504) in the
 * path's envelope. Never the gateway's own 500, never a hang, never the channel's key.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/** What the gateway says of a failure of its own, never of the upstream's or the client's. */
const OWN_FAILURE = 'The server had an error while processing your request.';
const CHANNEL_KEY = `sk-upstream-${'u'.repeat(40)}`;
const TIMEOUTS = { connectMs: 1000, firstByteMs: 2000, idleMs: 1000 };
/** Well past the channel's timeouts: an answer later than this is a hang. */
const ANSWER_WITHIN_MS = 15_000;

type ChannelType = 'openai' | 'anthropic' | 'gemini' | 'bedrock';
type ClientProtocol =
  | 'chat'
  | 'responses'
  | 'messages'
  | 'gemini'
  | 'embeddings'
  | 'images'
  | 'speech'
  | 'messages-count-tokens'
  | 'gemini-count-tokens';

const CLIENT_PROTOCOLS: readonly ClientProtocol[] = [
  'chat',
  'responses',
  'messages',
  'gemini',
  'embeddings',
  'images',
  'speech',
  'messages-count-tokens',
  'gemini-count-tokens',
];

const modelOf = (type: ChannelType) => `fuzz-${type}`;

/** The request each client protocol makes, asking for a stream or not. */
const clientRequest = (protocol: ClientProtocol, model: string, stream: boolean, key: string) => {
  switch (protocol) {
    case 'chat':
      return {
        path: '/v1/chat/completions',
        headers: { authorization: `Bearer ${key}` },
        body: { model, stream, messages: [{ role: 'user', content: 'hi' }] },
      };
    case 'responses':
      return {
        path: '/v1/responses',
        headers: { authorization: `Bearer ${key}` },
        body: { model, stream, input: 'hi' },
      };
    case 'messages':
      return {
        path: '/v1/messages',
        headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: { model, stream, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] },
      };
    case 'gemini':
      return {
        path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        headers: { 'x-goog-api-key': key },
        body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
      };
    // Embeddings have no stream: `stream` is ignored.
    case 'embeddings':
      return { path: '/v1/embeddings', headers: { authorization: `Bearer ${key}` }, body: { model, input: 'hi' } };
    case 'images':
      return {
        path: '/v1/images/generations',
        headers: { authorization: `Bearer ${key}` },
        body: { model, prompt: 'a lighthouse' },
      };
    case 'speech':
      return {
        path: '/v1/audio/speech',
        headers: { authorization: `Bearer ${key}` },
        body: { model, input: 'hi', voice: 'alloy' },
      };
    // Token counts have no stream either.
    case 'messages-count-tokens':
      return {
        path: '/v1/messages/count_tokens',
        headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: { model, messages: [{ role: 'user', content: 'hi' }] },
      };
    case 'gemini-count-tokens':
      return {
        path: `/v1beta/models/${model}:countTokens`,
        headers: { 'x-goog-api-key': key },
        body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
      };
  }
};

/** What a 200 answers the client: JSON, an event stream, or audio. */
type AnswerKind = 'json' | 'stream' | 'audio';
const answerKind = (protocol: ClientProtocol, stream: boolean): AnswerKind => {
  if (protocol === 'speech') return 'audio';
  const streams = protocol === 'chat' || protocol === 'responses' || protocol === 'messages' || protocol === 'gemini';
  return stream && streams ? 'stream' : 'json';
};

/** The wire an upstream request was made on, and whether it asked for a stream. */
const wireOf = (path: string, body: string): { wire: UpstreamWire; stream: boolean } | undefined => {
  const asked = (() => {
    try {
      return (JSON.parse(body) as { stream?: unknown }).stream === true;
    } catch {
      return false;
    }
  })();
  if (path.endsWith('/converse-stream')) return { wire: 'bedrock', stream: true };
  if (path.endsWith('/converse')) return { wire: 'bedrock', stream: false };
  if (path.endsWith('/embeddings')) return { wire: 'openai-embeddings', stream: false };
  if (path.endsWith('/images/generations')) return { wire: 'openai-images', stream: false };
  if (path.endsWith('/audio/speech')) return { wire: 'openai-speech', stream: false };
  if (path.includes(':batchEmbedContents') || path.includes(':embedContent'))
    return { wire: 'gemini-embeddings', stream: false };
  if (path.endsWith('/messages/count_tokens')) return { wire: 'anthropic-count-tokens', stream: false };
  if (path.includes(':countTokens')) return { wire: 'gemini-count-tokens', stream: false };
  if (path.endsWith('/chat/completions')) return { wire: 'openai-chat', stream: asked };
  if (path.endsWith('/responses')) return { wire: 'openai-responses', stream: asked };
  if (path.endsWith('/messages')) return { wire: 'anthropic', stream: asked };
  if (path.includes(':streamGenerateContent')) return { wire: 'gemini', stream: true };
  if (path.includes(':generateContent')) return { wire: 'gemini', stream: false };
  return undefined;
};

/** Where an upstream request finds the answer the current run chose for it. */
let answerFor: (wire: UpstreamWire, stream: boolean) => UpstreamAnswer = () => {
  throw new Error('no run in progress');
};

const answer = async (request: IncomingMessage, response: ServerResponse) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const asked = wireOf(request.url ?? '/', Buffer.concat(chunks).toString('utf8'));
  if (!asked) {
    response.writeHead(404).end();
    return;
  }
  const { status, contentType, body } = answerFor(asked.wire, asked.stream);
  response.writeHead(status, contentType === undefined ? {} : { 'content-type': contentType });
  response.end(body);
};

let restoreAwsEnvironment: () => void = () => undefined;

let upstream: http.Server;
let gateway: TestGateway;
let key: string;

const run = describeInProcess('the channels are reset between runs, and the fake upstream is this process');

run('every client protocol under hostile upstream answers', () => {
  beforeAll(async () => {
    restoreAwsEnvironment = setFakeAwsCredentials('AKIDFUZZUPSTREAM');
    upstream = http.createServer((request, response) => {
      answer(request, response).catch(() => response.destroy());
    });
    upstream.listen(0, '127.0.0.1');
    await once(upstream, 'listening');
    const origin = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    gateway = await startTestGateway();
    for (const type of ['openai', 'anthropic', 'gemini', 'bedrock'] as const) {
      const created = await gateway.admin('PUT', `/admin/v1/channels/fuzz-${type}`, {
        type,
        baseUrl: type === 'openai' ? `${origin}/v1` : origin,
        // Bedrock is called with the function's own AWS credentials.
        ...(type === 'bedrock' ? {} : { apiKey: CHANNEL_KEY }),
        models: [modelOf(type)],
        modelMap: { [modelOf(type)]: 'upstream-model' },
        timeouts: TIMEOUTS,
      });
      if (created.status !== 200) throw new Error(`channel setup failed: ${created.text}`);
    }
    ({ key } = await gateway.createAccountWithKey());
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    upstream?.closeAllConnections();
    upstream?.close();
    restoreAwsEnvironment();
  });

  /** A token count's answer must hold a whole number of tokens, whatever the upstream counted. */
  const countFault = (path: string, value: unknown) => {
    const member = path.endsWith('/count_tokens')
      ? 'input_tokens'
      : path.endsWith(':countTokens')
        ? 'totalTokens'
        : null;
    if (member === null) return undefined;
    const count = (value as Record<string, unknown> | null)?.[member];
    return Number.isSafeInteger(count) && (count as number) >= 0 ? undefined : `a count of ${JSON.stringify(count)}`;
  };

  /** What is wrong with an answer, if anything. */
  const faultOf = (path: string, kind: AnswerKind, status: number, contentType: string, text: string) => {
    if (status === 500 || status >= 600 || status < 200) return `status ${status}`;
    if (text.includes(CHANNEL_KEY)) return "the channel's key in the answer";
    // A stream's own failure travels as an event after the 200: the gateway's own is never one of them.
    if (text.includes(OWN_FAILURE)) return "the gateway's own failure in the answer";
    if (status >= 400) {
      try {
        return isEnvelopeOfPath(path, status, JSON.parse(text)) ? undefined : "not the path's envelope";
      } catch {
        return 'an error answer that is not JSON';
      }
    }
    if (status >= 300) return `status ${status}`;
    // Speech is audio: what an upstream says it is, as it sent it.
    if (kind === 'audio') return undefined;
    if (kind === 'json') {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        return 'a 200 that is not JSON';
      }
      return countFault(path, value);
    }
    if (!contentType.startsWith('text/event-stream')) return `a stream answered as ${contentType}`;
    for (const line of text.split('\n')) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      try {
        JSON.parse(line.slice('data: '.length));
      } catch {
        return `an event that is not JSON: ${line.slice(0, 200)}`;
      }
    }
    return undefined;
  };

  /** What is wrong with the answer to a well-formed upstream answer: anything short of all of it. */
  const incompleteOf = (path: string, kind: AnswerKind, status: number, contentType: string, text: string) => {
    if (status !== 200) return `a well-formed answer answered ${status}`;
    const fault = faultOf(path, kind, status, contentType, text);
    if (fault || kind === 'audio') return fault;
    const bodies = kind === 'json' ? [text] : text.split('\n').filter((line) => line.startsWith('data: {'));
    const failed = bodies.some((body) => {
      const value = JSON.parse(kind === 'json' ? body : body.slice('data: '.length)) as {
        error?: unknown;
        type?: unknown;
      };
      return (
        (value.error !== undefined && value.error !== null) ||
        value.type === 'error' ||
        value.type === 'response.failed'
      );
    });
    return failed || text.includes('event: error') ? 'a well-formed answer answered with an error' : undefined;
  };

  /** A client of `protocol` asking the model of the `type` channel, channel health reset first: what it got. */
  const ask = async (protocol: ClientProtocol, type: ChannelType, stream: boolean) => {
    resetChannelHealth();
    const { path, headers, body } = clientRequest(protocol, modelOf(type), stream, key);
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
    });
    const text = await response.text();
    return { path, status: response.status, contentType: response.headers.get('content-type') ?? '', text };
  };

  it(
    'answers in the client protocol, never with its own 500, a hang or the key',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...CLIENT_PROTOCOLS),
          fc.constantFrom<ChannelType>('openai', 'anthropic', 'gemini', 'bedrock'),
          fc.boolean(),
          fc.gen(),
          async (protocol, type, stream, generate) => {
            const answers: UpstreamAnswer[] = [];
            answerFor = (wire, asked) => {
              const chosen = generate(hostileUpstreamAnswer, wire, asked);
              answers.push(chosen);
              return chosen;
            };
            const { path, status, contentType, text } = await ask(protocol, type, stream);
            const fault = (answers.length > 0 && answers.every((one) => one.pristine) ? incompleteOf : faultOf)(
              path,
              answerKind(protocol, stream),
              status,
              contentType,
              text,
            );
            if (fault) {
              const given = answers.map((one) => ({ ...one, body: one.body.toString('utf8').slice(0, 600) }));
              throw new Error(
                `${fault}: ${protocol} ${stream ? 'stream' : 'call'} on ${type} → ${status} ${text.slice(0, 600)}\nupstream answered ${JSON.stringify(given)}`,
              );
            }
          },
        ),
        { numRuns: RUNS },
      );
      expect((await gateway.request('GET', '/health')).status).toBe(200);
    },
    RUNS * ANSWER_WITHIN_MS,
  );

  /** What a client of `protocol` gets when the upstream answers `answer`: a fault, or `undefined`. */
  const faultFor = async (protocol: ClientProtocol, type: ChannelType, stream: boolean, answer: UpstreamAnswer) => {
    answerFor = () => answer;
    const { path, status, contentType, text } = await ask(protocol, type, stream);
    const fault = faultOf(path, answerKind(protocol, stream), status, contentType, text);
    return fault && `${fault}: ${protocol} ${stream ? 'stream' : 'call'} on ${type} → ${status} ${text.slice(0, 300)}`;
  };

  /** The wire a request of `protocol` on a channel of `type` reaches, and whether it asks for a stream. */
  const wireReached = async (protocol: ClientProtocol, type: ChannelType, stream: boolean) => {
    let reached: { wire: UpstreamWire; stream: boolean } | undefined;
    answerFor = (wire, asked) => {
      reached ??= { wire, stream: asked };
      return { status: 503, contentType: 'application/json', body: Buffer.from('{"error":{"message":"probe"}}') };
    };
    await ask(protocol, type, stream);
    return reached;
  };

  it(
    'answers each well-formed answer with any one value changed or left out, every one in turn',
    async () => {
      // Speech is audio: there is no JSON value in its answer to change.
      const protocols = CLIENT_PROTOCOLS.filter((protocol) => protocol !== 'speech');
      const faults = new Set<string>();
      let answered = 0;
      for (const protocol of protocols)
        for (const type of ['openai', 'anthropic', 'gemini', 'bedrock'] as const)
          for (const stream of answerKind(protocol, true) === 'stream' ? [false, true] : [false]) {
            const reached = await wireReached(protocol, type, stream);
            // Served without an upstream (a count the gateway estimates), or by audio: nothing to change.
            if (!reached || reached.wire === 'openai-speech') continue;
            for (const answer of everySingleChange(reached.wire, reached.stream)) {
              const fault = await faultFor(protocol, type, stream, answer);
              answered += 1;
              if (fault && faults.size < 10)
                faults.add(`${fault}\nupstream answered ${answer.body.toString('utf8').slice(0, 400)}`);
            }
          }
      expect([...faults]).toEqual([]);
      // Each of the wires was reached and changed in every place.
      expect(answered).toBeGreaterThan(5000);
    },
    30 * 60_000,
  );
});
