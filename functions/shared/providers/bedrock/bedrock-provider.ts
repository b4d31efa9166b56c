import { randomUUID } from 'node:crypto';
import type { ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { upstreamBrokenResponse, upstreamTimeout } from '../../upstream/upstream-errors.js';
import type { ChatCompletionChunk } from '../../protocols/openai-chat/chat-completion-result.js';
import type { ChatCall, ChatProvider } from '../provider.js';
import { checkedConverseOutput, checkedStreamEvent } from './bedrock-api.js';
import { bedrockClient, bedrockRuntimeSdk } from './bedrock-client.js';
import { bedrockError, bedrockStreamError } from './bedrock-errors.js';
import { timeoutAfterReads } from '../../upstream/timeout-after-reads.js';
import { fromBedrockResponse } from './bedrock-response.js';
import { createBedrockStreamTranslator } from './bedrock-stream.js';
import { toBedrockConverseInput } from './convert-to-bedrock-converse.js';

/** Amazon Bedrock's Converse API, called with the function's own AWS identity: no API key. */

/** Converse names no response; the AWS request id does, and lets an operator find the call in AWS. */
const responseId = (output: { $metadata?: { requestId?: string } }) =>
  output.$metadata?.requestId ?? randomUUID().replaceAll('-', '');

/**
 * The SDK's events, failing with a 504 when Bedrock stays silent for longer than `idleMs` between two
 * events (a stalled stream must end with an error, never hang). `onIdle` closes the upstream call.
 */
async function* withIdleLimit<T>(source: AsyncIterable<T>, idleMs: number, onIdle: () => void): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    let arrived = false;
    const idle = new Promise<never>((_resolve, reject) => {
      timer = timeoutAfterReads(
        idleMs,
        () => arrived,
        () => {
          onIdle();
          reject(upstreamTimeout('stream idle'));
        },
      );
    });
    let next: IteratorResult<T>;
    try {
      next = await Promise.race([iterator.next(), idle]);
    } finally {
      arrived = true;
      clearTimeout(timer);
    }
    if (next.done) return;
    yield next.value;
  }
}

async function* bedrockChunks(
  events: AsyncIterable<ConverseStreamOutput>,
  call: ChatCall,
  upstream: AbortController,
  id: string,
): AsyncGenerator<ChatCompletionChunk> {
  const translate = createBedrockStreamTranslator({ id, model: call.upstreamModel });
  let complete = false;
  try {
    for await (const event of withIdleLimit(events, call.timeouts.idleMs, () => upstream.abort()))
      yield* translate.push(checkedStreamEvent(event));
    if (!translate.done) throw upstreamBrokenResponse('the stream ended before messageStop');
    yield* translate.end();
    complete = true;
  } catch (error) {
    throw bedrockStreamError(error, call.signal);
  } finally {
    // A failure, or a consumer that stopped reading: the upstream call is of no further use.
    if (!complete) upstream.abort();
  }
}

export const bedrockChatProvider: ChatProvider = {
  async complete(call) {
    const input = toBedrockConverseInput(call.request, call.upstreamModel, {
      betas: call.clientOptions?.betas,
      reasoning: call.reasoning,
    });
    try {
      const [client, { ConverseCommand }] = await Promise.all([
        bedrockClient(call.channel, call.timeouts),
        bedrockRuntimeSdk(),
      ]);
      const output = await client.send(new ConverseCommand(input), {
        abortSignal: call.signal,
      });
      return fromBedrockResponse(checkedConverseOutput(output), { id: responseId(output), model: call.upstreamModel });
    } catch (error) {
      throw bedrockError(error, call.signal);
    }
  },

  async stream(call) {
    const input = toBedrockConverseInput(call.request, call.upstreamModel, {
      betas: call.clientOptions?.betas,
      reasoning: call.reasoning,
    });
    // Our own abort (idle limit, early end) as well as the client's closes the upstream call.
    const upstream = new AbortController();
    const signal = AbortSignal.any([call.signal, upstream.signal]);
    try {
      const [client, { ConverseStreamCommand }] = await Promise.all([
        bedrockClient(call.channel, call.timeouts),
        bedrockRuntimeSdk(),
      ]);
      const output = await client.send(new ConverseStreamCommand(input), {
        abortSignal: signal,
      });
      if (!output.stream) throw upstreamBrokenResponse('the answer carried no event stream');
      return bedrockChunks(output.stream, call, upstream, responseId(output));
    } catch (error) {
      upstream.abort();
      throw bedrockError(error, call.signal);
    }
  },
};
