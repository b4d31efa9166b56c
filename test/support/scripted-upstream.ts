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

/**
 * Member names written with one escape, and what they mean: the names the JSON.parse bug reads as `\`
 * once an object at the same place had a member named `\`. `first` is a plain name that goes before
 * each, distinct per case, so that the two members sit where the bug looks.
 */
export const oneEscapeNames: readonly { readonly escaped: string; readonly name: string; readonly first: string }[] = [
  ['\\u540d', '名'],
  ['\\t', '\t'],
  ['\\"', '"'],
].map(([escaped, name]) => ({
  escaped: escaped!,
  name: name!,
  first: `names_${escaped!.length}_${name!.charCodeAt(0)}`,
}));
