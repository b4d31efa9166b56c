import type { IncomingMessage, ServerResponse } from 'node:http';
import { MAX_BODY_BYTES } from '../../functions/shared/middleware/json-body.js';
import type { HttpAnswer } from './invoke-handler.js';

/**
 * How much of a refused upload is read and thrown away, and for how long, before the connection is
 * cut: enough for an honest client that sent a body somewhat over the limit to finish sending and
 * read its 413, not enough to let anyone keep the connection busy with an endless upload.
 */
const DISCARD_LIMIT_BYTES = 4 * MAX_BODY_BYTES;
const DISCARD_TIMEOUT_MS = 30_000;

/**
 * Sends an answer given before the request body was read (a 413, a 400 on the path). The answer goes
 * out at once, whole (its length is declared); the connection then stays open, reading and dropping
 * the rest of the upload, and closes when the upload ends. Closing while the client is still sending
 * would make its TCP stack answer with a reset, and many clients report the reset, not the answer.
 */
export const answerEarly = (request: IncomingMessage, response: ServerResponse, answer: HttpAnswer): void => {
  const uploadDone = request.complete || request.destroyed;
  response.writeHead(answer.status, { ...answer.headers, connection: 'close' });
  if (uploadDone) {
    response.end(answer.payload);
    return;
  }
  response.write(answer.payload);
  let discarded = 0;
  const finish = () => {
    clearTimeout(timer);
    request.off('data', onData);
    response.end();
  };
  const cut = () => {
    finish();
    request.socket.destroy();
  };
  const onData = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT_BYTES) cut();
  };
  const timer = setTimeout(cut, DISCARD_TIMEOUT_MS);
  request.on('data', onData);
  request.once('end', finish);
  request.once('close', () => clearTimeout(timer));
  request.resume();
};
