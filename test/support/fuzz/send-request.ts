import type { Agent } from 'node:http';
import { request as httpRequest } from 'node:http';
import type { HostileRequest } from './hostile-requests.js';

export interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** Every byte of the body. */
  readonly body: Buffer;
}

/**
 * Sends a request exactly as generated (method, raw request target, headers, bytes) with node's HTTP
 * client, which, unlike fetch, lets any method and header name through.
 */
export const sendHostileRequest = (origin: string, agent: Agent, hostile: HostileRequest): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(origin);
    const request = httpRequest(
      { host: hostname, port, method: hostile.method, path: hostile.target, agent },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    for (const [name, value] of Object.entries(hostile.headers)) request.setHeader(name, value);
    if (hostile.body !== undefined) request.setHeader('content-length', hostile.body.length);
    request.end(hostile.body);
  });
