import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An upstream that answers every request with the JSON text a test gives it, exactly as given (a
 * wire whose every byte matters, such as a member name's escapes), and keeps each request's body.
 */
export interface ScriptedUpstream {
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string;
  /** Each request's body, in order. */
  readonly bodies: readonly string[];
  close(): Promise<void>;
}

export const startScriptedUpstream = async (answer: () => string): Promise<ScriptedUpstream> => {
  const bodies: string[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'content-type': 'application/json', 'x-amzn-requestid': 'scripted-1' });
      response.end(answer());
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
};
