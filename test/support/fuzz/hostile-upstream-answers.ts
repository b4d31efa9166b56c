import { EventStreamCodec } from '@smithy/eventstream-codec';
import fc from 'fast-check';
import { hostileValue, mutate } from './hostile-requests.js';
import { everyChangeOf } from './single-changes.js';

/**
 * What a misbehaving upstream can answer the gateway, for each wire it speaks: a well-formed answer,
 * the same with one value replaced by something hostile or one member gone, an event stream with
 * events dropped, repeated, swapped, cut short or interleaved with garbage, another status, another
 * content type, or bytes that are none of these.
 */

/** The wire an upstream request was made on, read from its path (and its body, for streaming). */
export type UpstreamWire =
  | 'openai-chat'
  | 'openai-responses'
  | 'anthropic'
  | 'gemini'
  | 'openai-embeddings'
  | 'gemini-embeddings'
  | 'bedrock'
  | 'openai-images'
  | 'openai-speech'
  | 'anthropic-count-tokens'
  | 'gemini-count-tokens';

export interface UpstreamAnswer {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: Buffer;
  /** The wire's well-formed answer, untouched: the client must get all of it, and no error. */
  readonly pristine?: true;
}

/** One stream event: a name (Anthropic's, the Responses API's and Bedrock's events carry one) and its JSON data. */
interface SampleEvent {
  readonly event?: string;
  readonly data: unknown;
}

const usageOpenAi = { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 };

const chatCompletion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'upstream-model',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: 'hello',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
      },
      finish_reason: 'tool_calls',
    },
  ],
  usage: usageOpenAi,
};

const chatChunk = (delta: object, finish: string | null = null) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1_700_000_000,
  model: 'upstream-model',
  choices: [{ index: 0, delta, finish_reason: finish }],
});

const chatEvents: SampleEvent[] = [
  { data: chatChunk({ role: 'assistant', content: '' }) },
  { data: chatChunk({ content: 'hel' }) },
  { data: chatChunk({ content: 'lo' }) },
  {
    data: chatChunk({
      tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '' } }],
    }),
  },
  { data: chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"q":"x"}' } }] }) },
  { data: chatChunk({}, 'tool_calls') },
  { data: { ...chatChunk({}), choices: [], usage: usageOpenAi } },
  { data: '[DONE]' },
];

const responseMessage = {
  type: 'message',
  id: 'msg_1',
  status: 'completed',
  role: 'assistant',
  content: [{ type: 'output_text', text: 'hello', annotations: [] }],
};
const response = (status: string, output: unknown[]) => ({
  id: 'resp_1',
  object: 'response',
  created_at: 1_700_000_000,
  status,
  model: 'upstream-model',
  output,
  usage: { input_tokens: 7, output_tokens: 3, total_tokens: 10 },
});
const responsesEvents: SampleEvent[] = [
  { type: 'response.created', response: response('in_progress', []) },
  { type: 'response.output_item.added', output_index: 0, item: { ...responseMessage, content: [] } },
  {
    type: 'response.content_part.added',
    item_id: 'msg_1',
    output_index: 0,
    content_index: 0,
    part: { type: 'output_text', text: '' },
  },
  { type: 'response.output_text.delta', item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'hello' },
  { type: 'response.output_text.done', item_id: 'msg_1', output_index: 0, content_index: 0, text: 'hello' },
  { type: 'response.output_item.done', output_index: 0, item: responseMessage },
  { type: 'response.completed', response: response('completed', [responseMessage]) },
].map((data) => ({ event: data.type, data }));

const anthropicMessage = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'upstream-model',
  content: [
    { type: 'thinking', thinking: 'hm', signature: 'sig' },
    { type: 'text', text: 'hello' },
    { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: { q: 'x' } },
  ],
  stop_reason: 'tool_use',
  stop_sequence: null,
  usage: { input_tokens: 7, output_tokens: 3 },
};
const anthropicEvents: SampleEvent[] = [
  { type: 'message_start', message: { ...anthropicMessage, content: [], stop_reason: null } },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'ping' },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hello' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'lookup', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"q":"x"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 3 } },
  { type: 'message_stop' },
].map((data) => ({ event: data.type, data }));

const geminiUsage = { promptTokenCount: 7, candidatesTokenCount: 3, totalTokenCount: 10 };
const geminiAnswer = {
  candidates: [
    {
      content: { role: 'model', parts: [{ text: 'hello' }, { functionCall: { name: 'lookup', args: { q: 'x' } } }] },
      finishReason: 'STOP',
      index: 0,
    },
  ],
  usageMetadata: geminiUsage,
  modelVersion: 'upstream-model',
};
const geminiEvents: SampleEvent[] = [
  { data: { candidates: [{ content: { role: 'model', parts: [{ text: 'hel' }] }, index: 0 }] } },
  { data: { candidates: [{ content: { role: 'model', parts: [{ text: 'lo' }] }, index: 0 }] } },
  { data: geminiAnswer },
];

const openAiEmbeddings = {
  object: 'list',
  data: [{ object: 'embedding', index: 0, embedding: [0.25, -0.5, 1] }],
  model: 'upstream-model',
  usage: { prompt_tokens: 2, total_tokens: 2 },
};
const geminiEmbeddings = { embeddings: [{ values: [0.25, -0.5, 1] }] };
const openAiImages = {
  created: 1_700_000_000,
  data: [{ b64_json: 'aGVsbG8=', revised_prompt: 'hello' }],
  usage: { input_tokens: 5, output_tokens: 10, total_tokens: 15 },
};

/** Speech is audio: whatever bytes, under an audio type or another. */
const speechAnswer: fc.Arbitrary<UpstreamAnswer> = fc
  .tuple(
    fc.constantFrom(200, 200, 200, 204, 400, 429, 500, 503),
    fc.constantFrom(undefined, 'audio/mpeg', 'audio/wav', 'application/json', 'text/event-stream'),
    fc.oneof(
      fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
      fc.jsonValue({ maxDepth: 2 }).map((value) => Buffer.from(JSON.stringify(value) ?? '')),
    ),
  )
  .map(([status, contentType, body]) => ({ status, contentType, body }));

const bedrockAnswer = {
  output: {
    message: {
      role: 'assistant',
      content: [
        { reasoningContent: { reasoningText: { text: 'hm', signature: 'sig' } } },
        { text: 'hello' },
        { toolUse: { toolUseId: 'tooluse_1', name: 'lookup', input: { q: 'x' } } },
      ],
    },
  },
  stopReason: 'tool_use',
  usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 },
  metrics: { latencyMs: 5 },
};
/** Bedrock's ConverseStream events: the event's type travels in a header, its members in the payload. */
const bedrockEvents: SampleEvent[] = [
  { event: 'messageStart', data: { role: 'assistant' } },
  { event: 'contentBlockDelta', data: { contentBlockIndex: 0, delta: { text: 'hel' } } },
  { event: 'contentBlockDelta', data: { contentBlockIndex: 0, delta: { text: 'lo' } } },
  { event: 'contentBlockStop', data: { contentBlockIndex: 0 } },
  {
    event: 'contentBlockStart',
    data: { contentBlockIndex: 1, start: { toolUse: { toolUseId: 'tooluse_1', name: 'lookup' } } },
  },
  { event: 'contentBlockDelta', data: { contentBlockIndex: 1, delta: { toolUse: { input: '{"q":"x"}' } } } },
  { event: 'contentBlockStop', data: { contentBlockIndex: 1 } },
  { event: 'messageStop', data: { stopReason: 'tool_use' } },
  {
    event: 'metadata',
    data: { usage: { inputTokens: 7, outputTokens: 3, totalTokens: 10 }, metrics: { latencyMs: 5 } },
  },
];

/** Anthropic's count_tokens answer. */
const anthropicTokenCount = { input_tokens: 7 };
/** Gemini's countTokens answer. */
const geminiTokenCount = {
  totalTokens: 7,
  promptTokensDetails: [{ modality: 'TEXT', tokenCount: 7 }],
};

interface Sample {
  readonly answer: unknown;
  readonly events: readonly SampleEvent[];
  /** How the wire reports a failure in the middle of a stream. */
  readonly errorEvent?: SampleEvent;
}

/** The wires whose answers are JSON or events: speech is audio (`speechAnswer`). */
const samples: Record<Exclude<UpstreamWire, 'openai-speech'>, Sample> = {
  'openai-chat': {
    answer: chatCompletion,
    events: chatEvents,
    errorEvent: { data: { error: { message: 'overloaded', type: 'server_error', code: null } } },
  },
  'openai-responses': {
    answer: response('completed', [responseMessage]),
    events: responsesEvents,
    errorEvent: { event: 'error', data: { type: 'error', code: 'server_error', message: 'boom', param: null } },
  },
  anthropic: {
    answer: anthropicMessage,
    events: anthropicEvents,
    errorEvent: { event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } },
  },
  gemini: {
    answer: geminiAnswer,
    events: geminiEvents,
    errorEvent: { data: { error: { code: 503, message: 'unavailable', status: 'UNAVAILABLE' } } },
  },
  // Embeddings never stream: a stream's events are those of the answer alone.
  'openai-embeddings': { answer: openAiEmbeddings, events: [{ data: openAiEmbeddings }] },
  'gemini-embeddings': { answer: geminiEmbeddings, events: [{ data: geminiEmbeddings }] },
  bedrock: { answer: bedrockAnswer, events: bedrockEvents },
  // Images never stream either.
  'openai-images': { answer: openAiImages, events: [{ data: openAiImages }] },
  // Nor do token counts.
  'anthropic-count-tokens': { answer: anthropicTokenCount, events: [{ data: anthropicTokenCount }] },
  'gemini-count-tokens': { answer: geminiTokenCount, events: [{ data: geminiTokenCount }] },
};

const frame = ({ event, data }: SampleEvent): string =>
  `${event === undefined ? '' : `event: ${event}\n`}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => new Uint8Array(Buffer.from(text, 'utf8')),
);
const header = (value: string) => ({ type: 'string' as const, value });

/** One event as a binary event-stream message (AWS's framing: lengths, headers, CRCs). */
const binaryFrame = ({ event, data }: SampleEvent): Buffer =>
  Buffer.from(
    codec.encode({
      headers: {
        ':event-type': header(event ?? 'unknown'),
        ':message-type': header('event'),
        ':content-type': header('application/json'),
      },
      body: new Uint8Array(Buffer.from(JSON.stringify(data) ?? 'null', 'utf8')),
    }),
  );

/** How each wire frames a stream's events, and what it calls its streams. */
const streamFraming: Partial<Record<UpstreamWire, { contentType: string; frame: (event: SampleEvent) => Buffer }>> = {
  bedrock: { contentType: 'application/vnd.amazon.eventstream', frame: binaryFrame },
};
const sseFraming = { contentType: 'text/event-stream', frame: (event: SampleEvent) => Buffer.from(frame(event)) };

/** A sample's JSON with one value replaced by a hostile one, or one member left out. */
const alteredJson = (value: unknown): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant(value) },
    {
      weight: 4,
      arbitrary: fc.tuple(hostileValue, fc.nat()).map(([replacement, pick]) => mutate(value, replacement, pick)),
    },
    // `undefined` in place of a member: JSON.stringify leaves the member out.
    { weight: 2, arbitrary: fc.nat().map((pick) => mutate(value, undefined, pick)) },
  );

/** An event stream made from the sample events: each event possibly altered, the list reshaped. */
const alteredStream = (
  { events, errorEvent }: Sample,
  framing: { frame: (event: SampleEvent) => Buffer },
): fc.Arbitrary<Buffer> =>
  fc
    .tuple(
      fc.array(fc.nat({ max: events.length - 1 }), { minLength: 1, maxLength: 3 }),
      fc.nat(),
      fc.constantFrom('keep', 'drop', 'repeat', 'swap', 'garbage', 'no-data', 'cut', 'error'),
      fc.nat(),
    )
    .chain(([altered, pick, reshape, cut]) =>
      fc.tuple(...altered.map((index) => alteredJson(events[index]!.data))).map((replacements) => {
        let list = [...events];
        altered.forEach((index, position) => {
          if (typeof list[index]!.data !== 'string') list[index] = { ...list[index]!, data: replacements[position] };
        });
        const at = pick % list.length;
        if (reshape === 'drop') list.splice(at, 1);
        if (reshape === 'repeat') list.splice(at, 0, list[at]!);
        if (reshape === 'swap' && at + 1 < list.length) [list[at], list[at + 1]] = [list[at + 1]!, list[at]!];
        if (reshape === 'error' && errorEvent) list.splice(at, 0, errorEvent);
        list = list.filter((event) => event.data !== undefined);
        let bytes = Buffer.concat(list.map(framing.frame));
        const cutAt = cut % (bytes.length + 1);
        if (reshape === 'garbage')
          bytes = Buffer.concat([bytes.subarray(0, cutAt), Buffer.from('data: {"unterminated\n\n\u0000\u0001'), bytes]);
        if (reshape === 'no-data')
          bytes = Buffer.concat([bytes, Buffer.from('event: message_stop\n\n: comment\n\nretry: 10\n\n')]);
        if (reshape === 'cut') bytes = bytes.subarray(0, cutAt);
        return bytes;
      }),
    );

const errorBodies = fc.oneof(
  fc.constant({ error: { message: 'upstream says no', type: 'invalid_request_error', code: 'bad' } }),
  fc.constant({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
  fc.constant({ error: { code: 429, message: 'Resource exhausted', status: 'RESOURCE_EXHAUSTED' } }),
  fc.jsonValue({ maxDepth: 3 }),
);

const text = (value: unknown) => Buffer.from(JSON.stringify(value) ?? '');

/** Any answer an upstream of `wire` might give to a request that asked for a stream, or not. */
export const hostileUpstreamAnswer = (wire: UpstreamWire, stream: boolean): fc.Arbitrary<UpstreamAnswer> => {
  if (wire === 'openai-speech') return speechAnswer;
  const sample = samples[wire];
  const { answer, events } = sample;
  const framing = streamFraming[wire] ?? sseFraming;
  const wellFormed = stream
    ? alteredStream(sample, framing).map((body) => ({ status: 200, contentType: framing.contentType, body }))
    : alteredJson(answer).map((value) => ({ status: 200, contentType: 'application/json', body: text(value) }));
  const pristine: UpstreamAnswer = stream
    ? { status: 200, contentType: framing.contentType, body: Buffer.concat(events.map(framing.frame)), pristine: true }
    : { status: 200, contentType: 'application/json', body: text(answer), pristine: true };
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(pristine) },
    { weight: 6, arbitrary: wellFormed },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom(400, 401, 403, 404, 408, 413, 422, 429, 500, 502, 503, 504, 529), errorBodies)
        .map(([status, body]) => ({ status, contentType: 'application/json', body: text(body) })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom(200, 201, 204, 206, 299, 302, 304),
          fc.constantFrom(undefined, 'text/plain', 'text/html', 'application/json', framing.contentType),
          fc.oneof(
            fc.constant(Buffer.alloc(0)),
            fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes)),
            fc.jsonValue({ maxDepth: 3 }).map(text),
            fc.constant(stream ? text(answer) : Buffer.concat(events.map(framing.frame))),
          ),
        )
        .map(([status, contentType, body]) => ({ status, contentType, body })),
    },
  );
};

/**
 * Every well-formed answer of `wire` with exactly one value changed (each member, element and
 * nesting level, to each kind of value or left out), whole or as a stream with one event changed:
 * the class the random answers sample, enumerated.
 */
export const everySingleChange = (wire: Exclude<UpstreamWire, 'openai-speech'>, stream: boolean): UpstreamAnswer[] => {
  const { answer, events } = samples[wire];
  if (!stream)
    return everyChangeOf(answer).map((value) => ({ status: 200, contentType: 'application/json', body: text(value) }));
  const framing = streamFraming[wire] ?? sseFraming;
  return events.flatMap((event, index) =>
    typeof event.data === 'string'
      ? []
      : everyChangeOf(event.data).map((data) => ({
          status: 200,
          contentType: framing.contentType,
          body: Buffer.concat(
            events
              .map((other, position) => (position === index ? { ...other, data } : other))
              .filter((one) => one.data !== undefined)
              .map(framing.frame),
          ),
        })),
  );
};
