import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An upstream whose every write the test makes, over a real connection: the bodies a reader gets
 * from it stall, drop and push back as Node's HTTP stack really makes them do.
 */
export interface DrivenUpstream {
  /** An event stream's body as the gateway holds it (head received), and the upstream's side of it. */
  openBody(): Promise<{ readonly body: IncomingMessage; readonly upstream: ServerResponse }>;
  close(): Promise<void>;
}

export const startDrivenUpstream = async (): Promise<DrivenUpstream> => {
  let serve: (response: ServerResponse) => void = () => undefined;
  const server = http.createServer((_request, response) => serve(response));
  // Kept alive, as the gateway's upstream connections are, so a reader can be seen handing one back.
  const agent = new http.Agent({ keepAlive: true });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    openBody: async () => {
      const upstream = new Promise<ServerResponse>((resolve) => {
        serve = (response) => {
          response.writeHead(200, { 'content-type': 'text/event-stream' });
          response.flushHeaders();
          resolve(response);
        };
      });
      const request = http.get({ port: (server.address() as AddressInfo).port, path: '/', agent });
      // A body torn down mid-stream fails its request too; the gateway's request has its own listener.
      request.on('error', () => undefined);
      const [body] = (await once(request, 'response')) as [IncomingMessage];
      return { body, upstream: await upstream };
    },
    close: async () => {
      agent.destroy();
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
};
