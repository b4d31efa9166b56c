import http from 'node:http';

/**
 * The floor of the bench: the least an HTTP forwarder can do in Node. Parses the JSON body, forwards
 * it to the upstream over a kept-alive connection and pipes the answer back. Run in its own process,
 * pinned like the gateway, so that the gateway's CPU and latency read as multiples of this.
 */
const upstream = new URL(process.env.FLOOR_UPSTREAM ?? 'http://127.0.0.1:1/v1');
const upstreamKey = process.env.FLOOR_UPSTREAM_KEY ?? '';
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let body: { model?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: unknown };
    } catch {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end('{"error":{"message":"bad json"}}');
      return;
    }
    const payload = JSON.stringify(body);
    const outgoing = http.request(
      `${upstream.href.replace(/\/+$/, '')}${request.url?.replace(/^\/v1/, '') ?? ''}`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          authorization: `Bearer ${upstreamKey}`,
        },
      },
      (incoming) => {
        response.writeHead(incoming.statusCode ?? 502, {
          'content-type': incoming.headers['content-type'] ?? 'application/json',
        });
        incoming.pipe(response);
      },
    );
    outgoing.on('error', () => {
      if (!response.headersSent) response.writeHead(502);
      response.end();
    });
    outgoing.end(payload);
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  process.send?.({ kind: 'ready', url: `http://127.0.0.1:${port}` });
});
process.on('message', (message: { kind: string }) => {
  if (message.kind === 'stop') server.close(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
