import http from 'node:http';

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

export interface Timing {
  readonly status: number;
  /** Milliseconds until the first byte of the body. */
  readonly firstByteMs: number;
  /** Milliseconds until the whole body. */
  readonly totalMs: number;
}

/** One POST over a kept-alive connection, timed with the monotonic clock. */
export const post = (url: string, headers: Record<string, string>, body: string): Promise<Timing> =>
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
    request.on('error', reject);
    request.end(body);
  });

export const percentile = (values: readonly number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
