import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

export interface RawAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: any;
}

/** Parses one HTTP/1.1 answer as it came off the socket (status line, headers, body). */
export const parseRawAnswer = (raw: string): RawAnswer => {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) throw new Error(`no complete HTTP answer in ${JSON.stringify(raw.slice(0, 200))}`);
  const [statusLine, ...headerLines] = raw.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const text = raw.slice(split + 4);
  return { status: Number(statusLine!.split(' ')[1]), headers, body: text ? JSON.parse(text) : undefined };
};

/**
 * Writes bytes on a fresh TCP connection, half-closes it, and resolves with everything the server
 * sent until it closed the connection (or with the socket error, if it reset it).
 */
export const sendRawBytes = (origin: string, bytes: Buffer | string): Promise<{ raw: string; error?: string }> => {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let error: string | undefined;
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (cause: NodeJS.ErrnoException) => {
      error = cause.code ?? cause.message;
    });
    socket.on('close', () => resolve({ raw: Buffer.concat(chunks).toString('latin1'), error }));
    socket.write(bytes, () => socket.end());
  });
};

export interface UploadResult {
  readonly status?: number;
  readonly headers?: Record<string, string | string[] | undefined>;
  readonly text?: string;
  /** The client-side error (a reset, a broken pipe), if the upload ended in one. */
  readonly error?: string;
}

/**
 * Uploads `size` bytes with node's HTTP client, as fast as the socket takes them, either with a
 * Content-Length or chunked, and resolves with the answer the client read, or its error.
 */
export const upload = (
  url: string,
  size: number,
  options: { chunked: boolean; headers?: Record<string, string> },
): Promise<UploadResult> =>
  new Promise((resolve) => {
    const headers: Record<string, string | number> = { 'content-type': 'application/json', ...options.headers };
    if (!options.chunked) headers['content-length'] = size;
    const request = httpRequest(url, { method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    const piece = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const pump = () => {
      while (sent < size) {
        const part = piece.subarray(0, Math.min(piece.length, size - sent));
        sent += part.length;
        if (!request.write(part)) {
          request.once('drain', pump);
          return;
        }
      }
      request.end();
    };
    pump();
  });
