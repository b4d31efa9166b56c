import { readFileSync } from 'node:fs';

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
): Promise<{ status: number; text: string }> => {
  const response = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text() };
};
