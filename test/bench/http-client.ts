import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export interface Timing {
  readonly status: number;
  /** Milliseconds until the first byte of the body. */
  readonly firstByteMs: number;
  /** Milliseconds until the whole body. */
  readonly totalMs: number;
}

/**
 * One POST over a kept-alive connection, timed with the monotonic clock. A pooled connection that
 * the server closed as idle just as it was reused fails with ECONNRESET before any answer (each
 * server sits idle while the others take their turn): that request is sent again, as Node's
 * documentation advises for a reused socket, and the timing is the second attempt's.
 */
export const post = (url: string, headers: Record<string, string>, body: string): Promise<Timing> =>
  postOnce(url, headers, body).catch((error: NodeJS.ErrnoException & { reusedSocket?: boolean }) => {
    if (error.reusedSocket && error.code === 'ECONNRESET') return postOnce(url, headers, body);
    throw error;
  });

const postOnce = (url: string, headers: Record<string, string>, body: string): Promise<Timing> =>
  new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const elapsed = () => Number(process.hrtime.bigint() - started) / 1e6;
    const request = http.request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } },
      (response) => {
        let firstByteMs = Number.NaN;
        response.on('data', () => {
          if (Number.isNaN(firstByteMs)) firstByteMs = elapsed();
        });
        response.on('end', () => resolve({ status: response.statusCode ?? 0, firstByteMs, totalMs: elapsed() }));
        response.on('error', reject);
      },
    );
    request.on('error', (error) => reject(Object.assign(error, { reusedSocket: request.reusedSocket })));
    request.end(body);
  });

export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
