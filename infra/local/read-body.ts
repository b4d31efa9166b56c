import type { IncomingMessage } from 'node:http';
import { payloadTooLarge } from '../../functions/shared/errors.js';

/**
 * Reads a request body, refusing (413) as soon as it passes the limit instead of buffering it all.
 * A refused body is left flowing, not destroyed: destroying it would close the connection under a
 * client still sending, which then sees a reset instead of the 413 (see `answerEarly`).
 */
export const readBody = (request: IncomingMessage, maxBytes: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > maxBytes) {
      reject(payloadTooLarge(maxBytes));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      request.off('data', onData);
      request.off('end', onEnd);
      request.off('error', onError);
      request.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        stop();
        reject(payloadTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    // Closed before its end: the client went away mid-upload.
    const onClose = () => {
      stop();
      reject(new Error('the client closed the connection before the request body ended'));
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
