import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import { CONCURRENT_INVOCATIONS_VARIABLE } from '../../functions/shared/aws/concurrent-invocations.js';
import { runAsFunction } from '../../infra/local/function-scope.js';
import { loadHandler } from '../../infra/local/handlers.js';
import { lambdaContext } from '../../infra/local/invoke-handler.js';
import { isStreamingHandler } from '../../infra/local/lambda-streaming.js';
import { buildProxyEvent } from '../../infra/local/proxy-event.js';

/**
 * The chat function's own work, invoked as Lambda invokes it: an API Gateway proxy event in, the
 * response written to a stream, with no HTTP server and no API Gateway emulation around it. The
 * difference from the same request over HTTP is what the local runtime adds and Lambda does not pay.
 */
class DiscardingResponseStream extends Writable {
  setPrelude(): void {}
  setContentType(): void {}
  override _write(_chunk: unknown, _encoding: string, callback: () => void): void {
    callback();
  }
}

/** CPU microseconds per invocation, for the two ways a process runs sequential requests. */
export interface HandlerPathCpu {
  /**
   * Lambda's default compute: one invocation at a time, the next only once the last has ended (its
   * usage record stored), with no other invocation's record to share a call with.
   */
  readonly oneAtATime: number;
  /**
   * A process that serves many invocations (the local runtime, Lambda Managed Instances): the next
   * request comes as soon as the last one's answer is complete, and records share calls.
   */
  readonly sharedProcess: number;
}

type Invoke = () => Promise<{ answered: Promise<void>; ended: Promise<void> }>;

/** Invocations made in this process: each leaves one usage record, under a request id of its own. */
let invocations = 0;
export const handlerPathInvocations = (): number => invocations;

const chatInvoker = async (key: string, body: string): Promise<Invoke> => {
  const handler = await loadHandler('chat');
  const request = {
    method: 'POST',
    httpVersion: '1.1',
    rawHeaders: ['authorization', `Bearer ${key}`, 'content-type', 'application/json'],
    headers: { 'content-type': 'application/json' },
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
  return async () => {
    const requestId = `bench-${(invocations += 1)}`;
    const event = buildProxyEvent({
      request,
      target: { path: '/v1/chat/completions', query: undefined },
      body: Buffer.from(body),
      resource: '/v1/chat/completions',
      pathParameters: null,
      requestId,
    });
    const context = lambdaContext('model-gateway-chat', requestId, 60);
    const stream = new DiscardingResponseStream();
    const answered = once(stream, 'finish').then(() => undefined);
    const ended = runAsFunction('chat', async () => {
      if (isStreamingHandler(handler)) await handler(event, stream, context);
      else {
        await (handler as (event: unknown, context: unknown) => Promise<unknown>)(event, context);
        stream.end();
      }
    });
    return { answered, ended };
  };
};

const cpuMicrosPerInvocation = async (
  invoke: Invoke,
  count: number,
  next: (invocation: Awaited<ReturnType<Invoke>>) => Promise<void>,
): Promise<number> => {
  const ended: Promise<void>[] = [];
  const run = async () => {
    for (let index = 0; index < count; index++) {
      const invocation = await invoke();
      ended.push(invocation.ended);
      await next(invocation);
    }
    await Promise.all(ended.splice(0));
  };
  await run();
  const before = process.cpuUsage();
  await run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
};

/** CPU microseconds per invocation over `count` sequential chat requests with `key`, run both ways. */
export const handlerPathCpuMicros = async (key: string, body: string, count: number): Promise<HandlerPathCpu> => {
  const invoke = await chatInvoker(key, body);
  const mark = process.env[CONCURRENT_INVOCATIONS_VARIABLE];
  delete process.env[CONCURRENT_INVOCATIONS_VARIABLE];
  let oneAtATime: number;
  try {
    oneAtATime = await cpuMicrosPerInvocation(invoke, count, (invocation) => invocation.ended);
  } finally {
    if (mark !== undefined) process.env[CONCURRENT_INVOCATIONS_VARIABLE] = mark;
  }
  const sharedProcess = await cpuMicrosPerInvocation(invoke, count, (invocation) => invocation.answered);
  return { oneAtATime, sharedProcess };
};
