import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { ConnectionPool, type Origin } from '../../functions/shared/http/client/connection-pool.js';
import { Exchange } from '../../functions/shared/http/client/exchange.js';
import type { ResponseBody } from '../../functions/shared/http/client/response-body.js';

/** A certificate for `localhost` only (not 127.0.0.1), made for these tests and valid for a century. */
const certificate = readFileSync(new URL('../support/tls/localhost-test-cert.pem', import.meta.url));
const privateKey = readFileSync(new URL('../support/tls/localhost-test-key.pem', import.meta.url));

interface Seen {
  readonly servername: string | false | null;
  readonly resumed: boolean;
  readonly alpn: string | false | null;
  readonly clientPort: number;
}

let server: https.Server;
let port: number;
const seen: Seen[] = [];

beforeAll(async () => {
  server = https.createServer(
    { key: privateKey, cert: certificate, ALPNProtocols: ['http/1.1'] },
    (request, response) => {
      const socket = request.socket as TLSSocket;
      seen.push({
        servername: socket.servername,
        resumed: socket.isSessionReused(),
        alpn: socket.alpnProtocol,
        clientPort: socket.remotePort!,
      });
      request.resume();
      request.on('end', () => {
        const body = JSON.stringify({ path: request.url });
        response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        response.end(body);
      });
    },
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

beforeEach(() => {
  seen.length = 0;
});

const originFor = (hostname: string, key = `https://${hostname}:${port}`): Origin => ({
  key,
  https: true,
  hostname,
  port,
});

/** One GET through `pool`: the status and body, or the failure before a head. */
const get = (
  pool: ConnectionPool,
  hostname: string,
  path: string,
  origin = originFor(hostname),
): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    new Exchange(
      { pool, origin, method: 'GET', target: path, host: `${hostname}:${port}`, headers: {} },
      {
        head: ({ status }, body: ResponseBody) => {
          const chunks: Buffer[] = [];
          body.on('data', (chunk: Buffer) => chunks.push(chunk));
          body.on('error', reject);
          body.on('end', () => resolve({ status, body: Buffer.concat(chunks).toString('utf8') }));
        },
        fail: reject,
      },
    );
  });

describe('calls to an HTTPS upstream', () => {
  it('are made over TLS with the host name for SNI and HTTP/1.1 by ALPN, and keep their connection', async () => {
    const pool = new ConnectionPool({ ca: certificate });
    await expect(get(pool, 'localhost', '/one')).resolves.toEqual({ status: 200, body: '{"path":"/one"}' });
    await expect(get(pool, 'localhost', '/two')).resolves.toEqual({ status: 200, body: '{"path":"/two"}' });
    expect(seen.map(({ servername, alpn }) => ({ servername, alpn }))).toEqual([
      { servername: 'localhost', alpn: 'http/1.1' },
      { servername: 'localhost', alpn: 'http/1.1' },
    ]);
    expect(seen[1]!.clientPort).toBe(seen[0]!.clientPort);
    pool.closeIdle();
  });

  it('resume the TLS session of the origin on a new connection', async () => {
    const pool = new ConnectionPool({ ca: certificate });
    await get(pool, 'localhost', '/first');
    // The session ticket of TLS 1.3 comes after the handshake: it is in hand once the answer is.
    pool.closeIdle();
    await get(pool, 'localhost', '/second');
    expect(seen).toHaveLength(2);
    expect(seen[1]!.clientPort).not.toBe(seen[0]!.clientPort);
    expect(seen.map(({ resumed }) => resumed)).toEqual([false, true]);
    pool.closeIdle();
  });

  it('keep the sessions of at most 100 origins, starting over when one more needs a place', async () => {
    const pool = new ConnectionPool({ ca: certificate });
    // Origins told apart by their key alone, all on this server: each gets a session of its own.
    const origin = (index: number) => originFor('localhost', `https://origin-${index}.test`);
    /** A call on a new connection to the origin: whether its session was resumed. */
    const resumedOn = async (index: number) => {
      pool.closeIdle();
      await get(pool, 'localhost', `/${index}`, origin(index));
      return seen.at(-1)!.resumed;
    };
    for (let index = 0; index < 100; index += 1) await resumedOn(index);
    expect(await resumedOn(0)).toBe(true);

    // The 101st origin's session finds the cache full: it is emptied, and holds the newcomer's alone.
    expect(await resumedOn(100)).toBe(false);
    expect(await resumedOn(100)).toBe(true);
    expect(await resumedOn(1)).toBe(false);
    pool.closeIdle();
  });

  it('fail before any request is sent when the certificate is not for the host called', async () => {
    const pool = new ConnectionPool({ ca: certificate });
    await expect(get(pool, '127.0.0.1', '/mismatch')).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    expect(seen).toHaveLength(0);
  });

  it('fail before any request is sent when no trusted authority signed the certificate', async () => {
    const pool = new ConnectionPool();
    await expect(get(pool, 'localhost', '/untrusted')).rejects.toMatchObject({ code: 'DEPTH_ZERO_SELF_SIGNED_CERT' });
    expect(seen).toHaveLength(0);
  });
});
