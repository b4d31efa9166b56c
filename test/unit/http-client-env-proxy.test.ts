import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { inspect } from 'node:util';
import { ConnectionPool, closeIdleConnections } from '../../functions/shared/http/client/connection-pool.js';
import { PROXY_VARIABLES, proxyFor } from '../../functions/shared/http/client/env-proxy.js';
import { exchangeWithin } from '../../functions/shared/http/client/exchange-within.js';
import { bodyText } from '../../functions/shared/http/client/response-body.js';
import { targetOf } from '../../functions/shared/http/client/url-target.js';
import { redactSecrets } from '../../functions/shared/security/redact-secrets.js';
import { ALLOWED_HOSTS_VARIABLE } from '../../functions/shared/security/upstream-host-policy.js';
import { UpstreamError } from '../../functions/shared/upstream/upstream-errors.js';
import { defaultTimeouts, readUpstreamText, sendUpstream } from '../../functions/shared/upstream/upstream-http.js';
import { rejectionOf } from '../support/rejection-of.js';

/**
 * Upstream calls through the proxy the environment names, as Node's own client makes them when
 * NODE_USE_ENV_PROXY=1: a real proxy on 127.0.0.1 (absolute-URI requests forwarded, CONNECT tunnels
 * piped), real upstreams behind it, plain and TLS. Every wait is on an event.
 */

const certificate = readFileSync(new URL('../support/tls/localhost-test-cert.pem', import.meta.url));
const privateKey = readFileSync(new URL('../support/tls/localhost-test-key.pem', import.meta.url));

const PROXY_USER = 'gateway-egress';
const PROXY_PASSWORD = 'pX7-qR2vLm9Kz4Tw8Yb3';
const ENVIRONMENT = ['NODE_USE_ENV_PROXY', ...PROXY_VARIABLES, ALLOWED_HOSTS_VARIABLE] as const;

interface ProxySeen {
  readonly method: string;
  /** The request target: an absolute URL, or `host:port` for CONNECT. */
  readonly target: string;
  readonly authorization: string | undefined;
}

interface TestProxy {
  readonly url: string;
  readonly seen: ProxySeen[];
}

const cleanups: (() => Promise<void> | void)[] = [];
const saved = new Map<string, string | undefined>();

beforeEach(() => {
  for (const name of ENVIRONMENT) {
    saved.set(name, process.env[name]);
    delete process.env[name];
  }
});

afterEach(async () => {
  closeIdleConnections();
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  for (const [name, value] of saved) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

const listening = async <T extends net.Server>(server: T): Promise<number> => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  cleanups.push(async () => {
    (server as unknown as http.Server).closeAllConnections?.();
    server.close();
    await once(server, 'close');
  });
  return (server.address() as AddressInfo).port;
};

/** The proxy's own connections, closed with it. */
const tracked = (server: net.Server): Socket[] => {
  const sockets: Socket[] = [];
  server.on('connection', (socket: Socket) => sockets.push(socket));
  cleanups.push(() => sockets.forEach((socket) => socket.destroy()));
  return sockets;
};

/**
 * A forwarding proxy: absolute-URI requests are sent on to their target, CONNECT opens a tunnel
 * (`refuseConnect`: answered with that status instead).
 */
const startProxy = async (refuseConnect?: number): Promise<TestProxy> => {
  const seen: ProxySeen[] = [];
  const server = http.createServer((request, response) => {
    seen.push({ method: request.method!, target: request.url!, authorization: request.headers['proxy-authorization'] });
    const headers = { ...request.headers };
    delete headers['proxy-authorization'];
    const onward = http.request(request.url!, { method: request.method, headers, agent: false }, (answer) => {
      response.writeHead(answer.statusCode!, answer.headers);
      answer.pipe(response);
    });
    // A target it cannot reach is the proxy's own 502, as real proxies answer.
    onward.on('error', () => response.writeHead(502).end('proxy: target unreachable'));
    request.pipe(onward);
  });
  tracked(server);
  server.on('connect', (request: http.IncomingMessage, client: Socket, head: Buffer) => {
    seen.push({ method: 'CONNECT', target: request.url!, authorization: request.headers['proxy-authorization'] });
    if (refuseConnect !== undefined) {
      client.end(`HTTP/1.1 ${refuseConnect} Refused\r\ncontent-length: 0\r\n\r\n`);
      return;
    }
    const [host, port] = [
      request.url!.slice(0, request.url!.lastIndexOf(':')),
      request.url!.slice(request.url!.lastIndexOf(':') + 1),
    ];
    // The test's upstreams listen on IPv4 loopback whatever `localhost` resolves to here.
    const onward = net.connect(Number(port), host === 'localhost' ? '127.0.0.1' : host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      onward.write(head);
      onward.pipe(client);
      client.pipe(onward);
    });
    onward.on('error', () => client.destroy());
    client.on('error', () => onward.destroy());
    cleanups.push(() => void onward.destroy());
  });
  const port = await listening(server);
  return { url: `http://127.0.0.1:${port}`, seen };
};

/** A plain upstream answering with the path it was asked for. */
const startUpstream = async (): Promise<{ url: string; paths: string[] }> => {
  const paths: string[] = [];
  const server = http.createServer((request, response) => {
    paths.push(request.url!);
    request.resume();
    request.on('end', () => response.end(`hello from ${request.url}`));
  });
  tracked(server);
  const port = await listening(server);
  return { url: `http://127.0.0.1:${port}`, paths };
};

/** An HTTPS upstream for `localhost` that records the name each connection asked for (SNI). */
const startTlsUpstream = async (): Promise<{ url: string; servernames: (string | false | null)[] }> => {
  const servernames: (string | false | null)[] = [];
  const server = https.createServer({ key: privateKey, cert: certificate }, (request, response) => {
    servernames.push((request.socket as TLSSocket).servername);
    request.resume();
    request.on('end', () => response.end(`secure ${request.url}`));
  });
  tracked(server);
  const port = await listening(server);
  return { url: `https://localhost:${port}`, servernames };
};

const useProxy = (variables: Partial<Record<(typeof ENVIRONMENT)[number], string>>): void => {
  process.env.NODE_USE_ENV_PROXY = '1';
  Object.assign(process.env, variables);
};

const call = (url: string) =>
  sendUpstream({ url, method: 'GET', headers: {}, signal: new AbortController().signal, timeouts: defaultTimeouts });

const getText = async (url: string): Promise<string> => {
  const response = await call(url);
  return readUpstreamText(response.body, 5_000);
};

/** A GET through `pool` (one that trusts the test certificate). */
const getThrough = async (pool: ConnectionPool, url: string): Promise<string> => {
  const { origin, host, path } = targetOf(url);
  const response = await exchangeWithin(
    { pool, origin, method: 'GET', target: path, host, headers: {} },
    5_000,
    () => new Error('no answer'),
  );
  return bodyText(response.body);
};

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('an upstream call with NODE_USE_ENV_PROXY=1 and a proxy in the environment', () => {
  it('to an HTTP target is sent to the proxy with its absolute URL and the proxy credentials', async () => {
    const proxy = await startProxy();
    const upstream = await startUpstream();
    useProxy({ HTTP_PROXY: proxy.url.replace('//', `//${PROXY_USER}:${PROXY_PASSWORD}@`) });
    expect(await getText(`${upstream.url}/v1/models?limit=2`)).toBe('hello from /v1/models?limit=2');
    expect(await getText(`${upstream.url}/v1/second`)).toBe('hello from /v1/second');
    expect(proxy.seen).toEqual([
      { method: 'GET', target: `${upstream.url}/v1/models?limit=2`, authorization: basic(PROXY_USER, PROXY_PASSWORD) },
      { method: 'GET', target: `${upstream.url}/v1/second`, authorization: basic(PROXY_USER, PROXY_PASSWORD) },
    ]);
  });

  it('to an HTTPS target goes through one CONNECT tunnel, with TLS to the target by its own name', async () => {
    const proxy = await startProxy();
    const upstream = await startTlsUpstream();
    useProxy({ https_proxy: proxy.url.replace('//', `//${PROXY_USER}:${PROXY_PASSWORD}@`) });
    const pool = new ConnectionPool({ ca: certificate, envProxy: true });
    cleanups.push(() => pool.closeIdle());
    expect(await getThrough(pool, `${upstream.url}/one`)).toBe('secure /one');
    expect(await getThrough(pool, `${upstream.url}/two`)).toBe('secure /two');
    // Kept alive through the tunnel: one CONNECT for both requests.
    expect(proxy.seen).toEqual([
      { method: 'CONNECT', target: new URL(upstream.url).host, authorization: basic(PROXY_USER, PROXY_PASSWORD) },
    ]);
    expect(upstream.servernames).toEqual(['localhost', 'localhost']);
  });

  it('the lower-case variable wins over the upper-case one', async () => {
    const proxy = await startProxy();
    const upstream = await startUpstream();
    useProxy({ http_proxy: proxy.url, HTTP_PROXY: 'http://127.0.0.1:9' });
    expect(await getText(`${upstream.url}/`)).toBe('hello from /');
    expect(proxy.seen).toHaveLength(1);
  });

  it.each([['127.0.0.1'], ['*'], ['127.0.0.1:PORT'], ['example.com, 127.0.0.1'], ['127.0.0.0-127.0.0.255']])(
    'bypasses the proxy for a target NO_PROXY=%s names',
    async (entry) => {
      const proxy = await startProxy();
      const upstream = await startUpstream();
      useProxy({ HTTP_PROXY: proxy.url });
      expect(await getText(`${upstream.url}/proxied`)).toBe('hello from /proxied');
      process.env.NO_PROXY = entry.replace('PORT', new URL(upstream.url).port);
      expect(await getText(`${upstream.url}/direct`)).toBe('hello from /direct');
      expect(upstream.paths).toEqual(['/proxied', '/direct']);
      expect(proxy.seen.map(({ target }) => target)).toEqual([`${upstream.url}/proxied`]);
    },
  );

  it('fails as a retryable unreachable upstream when the proxy refuses CONNECT, naming its status and no credential', async () => {
    const proxy = await startProxy(407);
    useProxy({ HTTPS_PROXY: proxy.url.replace('//', `//${PROXY_USER}:${PROXY_PASSWORD}@`) });
    const error = await rejectionOf(call('https://api.example.test/v1/chat/completions'));
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 502, retryable: true });
    const cause = (error as UpstreamError).cause as Error;
    expect(cause.message).toContain('407');
    expect(cause.message).toContain('api.example.test:443');
    expect(proxy.seen).toEqual([
      { method: 'CONNECT', target: 'api.example.test:443', authorization: basic(PROXY_USER, PROXY_PASSWORD) },
    ]);
    const everything = `${inspect(error, { depth: 5 })} ${JSON.stringify(error)} ${cause.stack}`;
    expect(everything).not.toContain(PROXY_PASSWORD);
    expect(everything).not.toContain(basic(PROXY_USER, PROXY_PASSWORD).slice(6));
    // The redactor knows the password, wherever a log line might carry it.
    expect(redactSecrets(`proxy said ${PROXY_PASSWORD} and ${encodeURIComponent(PROXY_PASSWORD)}`)).not.toContain(
      PROXY_PASSWORD,
    );
  });

  it('checks the upstream host policy against the target name, not the proxy address', async () => {
    const proxy = await startProxy();
    const upstream = await startUpstream();
    useProxy({ HTTP_PROXY: proxy.url, [ALLOWED_HOSTS_VARIABLE]: 'allowed.example.test' });
    // The proxy (127.0.0.1) is not in the allow-list; the target is, and the proxy answers for it.
    const viaAllowed = await call('http://allowed.example.test/');
    expect(await readUpstreamText(viaAllowed.body, 5_000)).toBe('proxy: target unreachable');
    expect(proxy.seen.map(({ target }) => target)).toEqual(['http://allowed.example.test/']);
    // A target outside the allow-list is refused before the proxy hears of it.
    const refused = (await rejectionOf(call(`${upstream.url}/`))) as UpstreamError;
    expect((refused.cause as { code?: string }).code).toBe('EHOSTPOLICY');
    expect(proxy.seen).toHaveLength(1);
  });
});

describe('without NODE_USE_ENV_PROXY', () => {
  it('the proxy variables are left alone, as Node leaves them', async () => {
    const proxy = await startProxy();
    const upstream = await startUpstream();
    useProxy({ HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url });
    expect(await getText(`${upstream.url}/proxied`)).toBe('hello from /proxied');
    delete process.env.NODE_USE_ENV_PROXY;
    expect(await getText(`${upstream.url}/plain`)).toBe('hello from /plain');
    expect(proxy.seen.map(({ target }) => target)).toEqual([`${upstream.url}/proxied`]);
  });
});

describe('proxyFor', () => {
  const on = { NODE_USE_ENV_PROXY: '1', HTTPS_PROXY: 'http://proxy.internal:3128' };
  const target = (hostname: string, port = 443) => ({ https: true, hostname, port });

  it.each([
    ['api.openai.com', 'api.openai.com', false],
    ['API.OpenAI.com', 'api.openai.com', false],
    ['.openai.com', 'api.openai.com', false],
    ['.openai.com', 'openai.com', false],
    ['.openai.com', 'notopenai.com', true],
    ['*.openai.com', 'api.openai.com', false],
    ['*.openai.com', 'openai.com', true],
    ['api.openai.com:443', 'api.openai.com', false],
    ['api.openai.com:8443', 'api.openai.com', true],
    ['10.0.0.1-10.0.0.9', '10.0.0.5', false],
    ['10.0.0.1-10.0.0.9', '10.0.0.10', true],
    ['[::1]', '::1', false],
    ['', 'api.openai.com', true],
    ['other.com', 'api.openai.com', true],
  ])('NO_PROXY=%s for %s: proxied %s', (noProxy, hostname, proxied) => {
    expect(proxyFor(target(hostname), { ...on, NO_PROXY: noProxy }) !== undefined).toBe(proxied);
  });

  it('takes the proxy of the target scheme, and none of another scheme', () => {
    expect(proxyFor({ https: false, hostname: 'a.test', port: 80 }, on)).toBeUndefined();
    expect(proxyFor(target('a.test'), on)).toMatchObject({ hostname: 'proxy.internal', port: 3128, https: false });
    expect(proxyFor(target('a.test'), { ...on, HTTPS_PROXY: 'socks5://proxy.internal:1080' })).toBeUndefined();
  });

  it('is on with --use-env-proxy in NODE_OPTIONS, and off with --no-use-env-proxy', () => {
    const { HTTPS_PROXY } = on;
    expect(proxyFor(target('a.test'), { HTTPS_PROXY, NODE_OPTIONS: '--use-env-proxy' })).toBeDefined();
    expect(proxyFor(target('a.test'), { ...on, NODE_OPTIONS: '--no-use-env-proxy' })).toBeUndefined();
    expect(proxyFor(target('a.test'), { HTTPS_PROXY })).toBeUndefined();
  });
});
