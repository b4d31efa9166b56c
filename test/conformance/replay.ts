import { readFileSync } from 'node:fs';
import type { TestGateway } from '../support/gateway-client.js';
import { invocationEnd } from '../support/invocation-ends.js';

/** Recorded client requests (scrubbed) under test/conformance/fixtures/<client>/. */
export const recorded = <T = any>(client: string, name: string): T =>
  JSON.parse(readFileSync(new URL(`./fixtures/${client}/${name}.json`, import.meta.url), 'utf8')) as T;

export interface SseEvent {
  readonly event: string | undefined;
  readonly data: any;
}

/** An SSE body as its events, each `data` parsed as JSON. */
export const sseEvents = (text: string): SseEvent[] =>
  text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim())
    .map((block) => {
      const lines = block.split(/\r?\n/);
      const event = lines
        .find((line) => line.startsWith('event:'))
        ?.slice(6)
        .trim();
      const data = lines
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
    });

/** Replays a recorded request against the gateway with the client's own headers and a gateway key. */
export const replay = async (
  url: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; text: string; requestId: string }> => {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return {
    status: response.status,
    text: await response.text(),
    requestId: response.headers.get('x-request-id') ?? '',
  };
};

/**
 * The usage record of one request, read once its invocation has ended: the gateway writes the record
 * before the invocation ends, so there is nothing to poll for.
 */
export const usageRecordOf = async (gateway: TestGateway, accountId: string, requestId: string): Promise<any> => {
  await invocationEnd(requestId);
  const { body } = await gateway.admin('GET', `/admin/v1/usage?accountId=${accountId}&limit=100`);
  return (body.data as { requestId: string }[]).find((record) => record.requestId === requestId);
};
