import type { IncomingMessage } from 'node:http';
import { payloadTooLarge } from '../../functions/shared/errors.js';

/** The client broke off its upload (went away, or sent a malformed chunked body): nobody to answer. */
export class UploadAborted extends Error {
  constructor(cause: unknown) {
    super('the request body ended before it was complete', { cause });
    this.name = 'UploadAborted';
  }
}

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
      reject(new UploadAborted(error));
    };
    const onClose = () => {
      stop();
      reject(new UploadAborted(undefined));
    };
    request.on('data', onData);
    request.on('end', onEnd);
    request.on('error', onError);
    request.on('close', onClose);
  });
