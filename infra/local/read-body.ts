import type { IncomingMessage } from 'node:http';
import { payloadTooLarge } from '../../functions/shared/errors.js';

/** Reads a request body, refusing (413) as soon as it passes the limit instead of buffering it all. */
export const readBody = async (request: IncomingMessage, maxBytes: number): Promise<Buffer> => {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > maxBytes) throw payloadTooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw payloadTooLarge(maxBytes);
    chunks.push(chunk);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
};
