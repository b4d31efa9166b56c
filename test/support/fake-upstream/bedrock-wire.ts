import type { ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import type { Fault, FakeExchange, WireRoute } from './fake-upstream.js';
import { writeStreamed } from './sse-writer.js';

/**
 * Amazon Bedrock's Converse wire format, for one upstream model id (URL-encoded in the path, as the
 * SDK sends it). Like the other fakes: echoes the last user text (images as `[png image]`); with tools
 * and no tool result yet it calls the first tool (its input split over several deltas when
 * streaming); after a tool result it answers with that result. `inferenceConfig.maxTokens` cuts the
 * answer at that many words and a stop sequence cuts it where it appears, with Bedrock's stop reasons.
 * Signatures are not checked.
 */

/** An exception frame to send in the middle of the next stream, after `afterEvents` events. */
export interface BedrockStreamException {
  readonly type:
    | 'internalServerException'
    | 'modelStreamErrorException'
    | 'throttlingException'
    | 'validationException'
    | 'serviceUnavailableException';
  readonly message: string;
  readonly afterEvents: number;
}

export interface BedrockWireOptions {
  /** Consumed one per streamed request: push to make the next stream fail mid-way. */
  readonly streamExceptions?: BedrockStreamException[];
}

export const bedrockUsage = { inputTokens: 11, outputTokens: 7, totalTokens: 21, cacheReadInputTokens: 3 };
export const BEDROCK_REQUEST_ID = 'bedrock-request-fake-1';

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString('utf8'),
  (text) => new Uint8Array(Buffer.from(text, 'utf8')),
);

const stringHeader = (value: string) => ({ type: 'string' as const, value });
const jsonBody = (payload: unknown) => new Uint8Array(Buffer.from(JSON.stringify(payload), 'utf8'));

const eventFrame = (type: string, payload: unknown) =>
  codec.encode({
    headers: {
      ':event-type': stringHeader(type),
      ':message-type': stringHeader('event'),
      ':content-type': stringHeader('application/json'),
    },
    body: jsonBody(payload),
  });

const exceptionFrame = (exception: BedrockStreamException) =>
  codec.encode({
    headers: {
      ':exception-type': stringHeader(exception.type),
      ':message-type': stringHeader('exception'),
      ':content-type': stringHeader('application/json'),
    },
    body: jsonBody({ message: exception.message }),
  });

/** An exception frame, for an error event of the fake's own making (see the `echo-mid-stream` fault). */
export const bedrockExceptionFrame = (type: BedrockStreamException['type'], message: string): Uint8Array =>
  exceptionFrame({ type, message, afterEvents: 0 });

const textOf = (content: any[] | undefined): string =>
  (content ?? [])
    .map(
      (block) =>
        block.text ??
        (block.image ? `[${block.image.format} image]` : block.document ? `[${block.document.format} document]` : ''),
    )
    .join(' ');

const plan = (body: any) => {
  const last = (body.messages ?? []).at(-1);
  const toolResult = (last?.content ?? []).find((block: any) => block.toolResult)?.toolResult;
  const tools = body.toolConfig?.tools ?? [];
  if (tools.length && !toolResult) {
    return {
      kind: 'tool' as const,
      name: tools[0].toolSpec.name as string,
      input: '{"city":"Paris","unit":"celsius"}',
    };
  }
  let text = toolResult ? `The tool said: ${textOf(toolResult.content)}` : `Echo: ${textOf(last?.content)}`;
  let stopReason = 'end_turn';
  for (const stop of body.inferenceConfig?.stopSequences ?? []) {
    const at = text.indexOf(stop);
    if (at >= 0) {
      text = text.slice(0, at);
      stopReason = 'stop_sequence';
    }
  }
  const words = text.split(/(?= )/);
  const maxTokens = body.inferenceConfig?.maxTokens;
  if (maxTokens !== undefined && words.length > maxTokens) {
    text = words.slice(0, maxTokens).join('');
    stopReason = 'max_tokens';
  }
  return { kind: 'text' as const, text, stopReason };
};

/** Writes event stream frames as Bedrock streams them (one write per event), applying a streaming fault. */
const writeEventStream = (
  response: ServerResponse,
  frames: readonly Uint8Array[],
  fault: Fault | undefined,
): Promise<void> =>
  writeStreamed(
    response,
    { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': BEDROCK_REQUEST_ID },
    frames,
    fault,
    (frame) => {
      // A frame whose payload no longer matches its checksum.
      const broken = Buffer.from(frame);
      broken[broken.length - 6] = broken[broken.length - 6]! ^ 0xff;
      return broken;
    },
  );

const converseRoute =
  (stream: boolean, options: BedrockWireOptions): WireRoute =>
  async ({ request, response, fault }: FakeExchange) => {
    const answer = plan(request.body);
    const stopReason = answer.kind === 'tool' ? 'tool_use' : answer.stopReason;
    if (!stream) {
      const content =
        answer.kind === 'tool'
          ? [{ toolUse: { toolUseId: 'tooluse_fake_1', name: answer.name, input: JSON.parse(answer.input) } }]
          : [{ text: answer.text }];
      response.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': BEDROCK_REQUEST_ID });
      response.end(
        JSON.stringify({
          output: { message: { role: 'assistant', content } },
          stopReason,
          usage: bedrockUsage,
          metrics: { latencyMs: 42 },
        }),
      );
      return;
    }
    const frames: Uint8Array[] = [eventFrame('messageStart', { role: 'assistant', p: 'abcdefgh' })];
    if (answer.kind === 'tool') {
      frames.push(
        eventFrame('contentBlockStart', {
          contentBlockIndex: 0,
          start: { toolUse: { toolUseId: 'tooluse_fake_1', name: answer.name } },
        }),
      );
      for (const piece of answer.input.match(/.{1,5}/g) ?? [])
        frames.push(eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: piece } } }));
    } else {
      for (const word of answer.text.split(/(?= )/))
        frames.push(eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: word }, p: 'abcd' }));
    }
    frames.push(eventFrame('contentBlockStop', { contentBlockIndex: 0 }));
    frames.push(eventFrame('messageStop', { stopReason }));
    frames.push(eventFrame('metadata', { usage: bedrockUsage, metrics: { latencyMs: 42 } }));
    const exception = options.streamExceptions?.shift();
    if (exception) frames.splice(exception.afterEvents, frames.length, exceptionFrame(exception));
    await writeEventStream(response, frames, fault);
  };

export const bedrockRoutes = (upstreamModel: string, options: BedrockWireOptions = {}): Record<string, WireRoute> => ({
  [`POST /model/${encodeURIComponent(upstreamModel)}/converse`]: converseRoute(false, options),
  [`POST /model/${encodeURIComponent(upstreamModel)}/converse-stream`]: converseRoute(true, options),
});
