import { Writable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
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

/** CPU microseconds per invocation over `count` sequential chat requests with `key`. */
export const handlerPathCpuMicros = async (key: string, body: string, count: number): Promise<number> => {
  const handler = await loadHandler('chat');
  const request = {
    method: 'POST',
    httpVersion: '1.1',
    rawHeaders: ['authorization', `Bearer ${key}`, 'content-type', 'application/json'],
    headers: { 'content-type': 'application/json' },
    socket: { remoteAddress: '127.0.0.1' },
  } as unknown as IncomingMessage;
  const invoke = async (index: number) => {
    const requestId = `bench-${index}`;
    const event = buildProxyEvent({
      request,
      url: new URL('http://localhost/v1/chat/completions'),
      body: Buffer.from(body),
      resource: '/v1/chat/completions',
      pathParameters: null,
      requestId,
    });
    const context = lambdaContext('model-gateway-chat', requestId, 60);
    await runAsFunction('chat', async () => {
      if (isStreamingHandler(handler)) {
        const stream = new DiscardingResponseStream();
        await handler(event, stream, context);
      } else await (handler as (event: unknown, context: unknown) => Promise<unknown>)(event, context);
    });
  };
  for (let index = 0; index < 50; index++) await invoke(index);
  const before = process.cpuUsage();
  for (let index = 0; index < count; index++) await invoke(index);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
};
