import dns from 'node:dns';
import net, { type LookupFunction, type Socket } from 'node:net';
import tls from 'node:tls';
import { upstreamHostPolicyActive, upstreamHostRefusal } from '../../security/upstream-host-policy.js';
import { proxyFor, type Proxy } from './env-proxy.js';
import { tunnelThrough } from './proxy-tunnel.js';

/** Where connections go: one pool of idle connections per origin. */
export interface Origin {
  /** `https://host:port`, the pool's key. */
  readonly key: string;
  readonly https: boolean;
  readonly hostname: string;
  readonly port: number;
}

/** What a connection's socket reports while a request owns it. */
export interface ConnectionUser {
  socketData(chunk: Buffer): void;
  /** The peer ended its side. */
  socketEnd(): void;
  /** The socket broke; `socketClose` follows. */
  socketError(error: Error): void;
  socketClose(): void;
}

/** Idle connections kept per origin, beyond which a finished one is closed. */
const MAX_IDLE_PER_ORIGIN = 64;
/**
 * A connection idle for longer than this is not used again, by default. Servers commonly close idle
 * keep-alive connections after 5 s, and one they close while our request is on its way fails that
 * request; a Lambda environment thawed after a freeze finds all of them that old.
 */
const IDLE_LIMIT_MS = 4_000;
/** TLS sessions kept for resumption, as Node's HTTPS agent keeps them. */
const MAX_TLS_SESSIONS = 100;

/**
 * A keep-alive connection to a server (an upstream, the store). Its socket's listeners are attached once, for its whole
 * life, and report to whichever request owns it (`user`); while idle, any event from the peer (it
 * closed, or sent bytes nobody asked for) ends the connection.
 */
export class Connection {
  user: ConnectionUser | undefined;
  /** When it was last released to the pool. */
  private idleSince = 0;
  /** How long it may stay idle, as the server's last `Keep-Alive: timeout` allows (see `keepAliveIdleMs`). */
  private serverIdleLimitMs = Number.POSITIVE_INFINITY;
  /** Connected, and for HTTPS past the TLS handshake: a request on it waits on the server alone. */
  private established = false;

  /**
   * `key`: the pool the connection goes back to; `carrier`: the socket to the network under `socket`,
   * when `socket` is TLS through a proxy's tunnel (it alone keeps the process alive).
   */
  constructor(
    readonly socket: Socket,
    private readonly key: string,
    private readonly pool: ConnectionPool,
    private readonly carrier: Socket = socket,
  ) {
    socket.once(socket instanceof tls.TLSSocket ? 'secureConnect' : 'connect', () => {
      this.established = true;
    });
    socket.on('data', (chunk: Buffer) => {
      if (this.user) this.user.socketData(chunk);
      else socket.destroy();
    });
    socket.on('end', () => {
      if (this.user) this.user.socketEnd();
      else socket.destroy();
    });
    socket.on('error', (error: Error) => {
      if (this.user) this.user.socketError(error);
    });
    socket.on('close', () => {
      this.pool.forget(this.key, this);
      const user = this.user;
      this.user = undefined;
      user?.socketClose();
    });
  }

  /**
   * Whether the connection is still being set up: no TCP connection yet, or, to an HTTPS origin, no
   * finished TLS handshake (a socket counts as connected once its TCP handshake is done).
   */
  get settingUp(): boolean {
    return !this.established && !this.socket.destroyed;
  }

  /**
   * The request is over and the connection may carry another: back to its origin's pool, for as long
   * as `serverIdleLimitMs` (the server's `Keep-Alive: timeout`, less a margin) when the server said.
   */
  release(serverIdleLimitMs = Number.POSITIVE_INFINITY): void {
    this.user = undefined;
    if (this.socket.destroyed) return;
    if (serverIdleLimitMs <= 0) {
      this.socket.destroy();
      return;
    }
    // A paused socket (its reader was slow) would not hear the peer close while idle.
    this.socket.resume();
    // An idle connection keeps no process alive: a CLI exits as soon as its work is done.
    this.carrier.unref();
    this.idleSince = performance.now();
    this.serverIdleLimitMs = serverIdleLimitMs;
    if (!this.pool.keep(this.key, this)) this.socket.destroy();
  }

  /** Taken from the pool: the connection keeps the process alive again while a request is on it. */
  ref(): void {
    this.carrier.ref();
  }

  /** The request is over and the connection cannot carry another. */
  destroy(): void {
    this.user = undefined;
    this.socket.destroy();
  }

  /**
   * Whether an idle connection may still be used: not destroyed (a peer that closed or ended it while
   * it was idle destroyed it, see above) and not idle for longer than `idleLimitMs`.
   */
  fresh(now: number, idleLimitMs: number): boolean {
    return !this.socket.destroyed && now - this.idleSince < Math.min(idleLimitMs, this.serverIdleLimitMs);
  }
}

/** Which hosts a pool may connect to, checked on the address each connection goes to. */
export interface HostPolicy {
  /** Whether any check is on; off, connections resolve and connect as Node does. */
  active(): boolean;
  /** Why `host` (resolved to `addresses`) may not be connected to, or `undefined`. */
  refusal(host: string, addresses: readonly string[]): string | undefined;
}

/** The pool key of connections to `origin` through `proxy`: never shared with direct ones. */
const routeKey = (origin: Origin, proxy: Proxy | undefined): string =>
  proxy ? `${origin.key} via ${proxy.label}` : origin.key;

/** The socket to a proxy: TLS to an `https://` one, checked against the proxy's own name. */
const connectToProxy = (proxy: Proxy, ca: string | Buffer | undefined): Socket => {
  const options = {
    host: proxy.hostname,
    port: proxy.port,
    noDelay: true,
    keepAlive: true,
    keepAliveInitialDelay: 1_000,
  };
  if (!proxy.https) return net.connect(options);
  const socket = tls.connect({
    ...options,
    ...(net.isIP(proxy.hostname) === 0 ? { servername: proxy.hostname } : {}),
    ...(ca ? { ca } : {}),
  });
  socket.setNoDelay(true);
  socket.setKeepAlive(true, 1_000);
  return socket;
};

const hostRefused = (reason: string): Error =>
  Object.assign(new Error(`Connection refused by the upstream host policy: ${reason}.`), { code: 'EHOSTPOLICY' });

/**
 * Node's own resolution, with the policy applied to what it resolved to, so that the check and the
 * connection see the same address (a name resolved twice may answer differently the second time).
 */
const lookupWithin =
  (policy: HostPolicy): LookupFunction =>
  (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, found) => {
      if (error) return callback(error, '', 0);
      const addresses = found.map((entry) => entry.address);
      const reason = policy.refusal(hostname, addresses);
      if (reason !== undefined) return callback(hostRefused(reason), '', 0);
      if (options.all) return callback(null, found);
      return callback(null, found[0]!.address, found[0]!.family);
    });
  };

/** A socket that fails as a refused connection would, once its listeners are attached. */
const refusedSocket = (reason: string): Socket => {
  const socket = new net.Socket();
  process.nextTick(() => socket.destroy(hostRefused(reason)));
  return socket;
};

/** Keep-alive connections by origin, and the TLS sessions that resume them. */
export class ConnectionPool {
  private readonly idle = new Map<string, Connection[]>();
  private readonly tlsSessions = new Map<string, Buffer>();

  /**
   * `ca`: certificates to trust instead of Node's default authorities (a test's own); `idleLimitMs`:
   * how long a connection may sit idle and still be used.
   */
  constructor(
    private readonly options: {
      readonly ca?: string | Buffer;
      readonly idleLimitMs?: number;
      readonly hostPolicy?: HostPolicy;
      /** Follow the environment's proxy settings (see env-proxy.ts). */
      readonly envProxy?: boolean;
    } = {},
  ) {}

  /**
   * The proxy a connection to `origin` goes through, or `undefined`. Throws `InvalidProxyConfigError`
   * for a proxy URL that is no URL.
   */
  proxyFor(origin: Origin): Proxy | undefined {
    return this.options.envProxy ? proxyFor(origin) : undefined;
  }

  /**
   * A connection to `origin` (through `proxy`, as `proxyFor` told), owned by `user`: the most recently
   * used idle one, else a new one.
   */
  acquire(origin: Origin, user: ConnectionUser, proxy?: Proxy): Connection {
    const key = routeKey(origin, proxy);
    const idle = this.idle.get(key);
    if (idle) {
      const now = performance.now();
      for (let connection = idle.pop(); connection; connection = idle.pop()) {
        if (connection.fresh(now, this.options.idleLimitMs ?? IDLE_LIMIT_MS)) {
          connection.user = user;
          connection.ref();
          return connection;
        }
        connection.destroy();
      }
    }
    const { socket, carrier } = this.connect(origin, proxy);
    const connection = new Connection(socket, key, this, carrier);
    connection.user = user;
    return connection;
  }

  /** Takes a released connection back; false when its origin already has all the idle ones it keeps. */
  keep(originKey: string, connection: Connection): boolean {
    let idle = this.idle.get(originKey);
    if (!idle) this.idle.set(originKey, (idle = []));
    if (idle.length >= MAX_IDLE_PER_ORIGIN) return false;
    idle.push(connection);
    return true;
  }

  /** An idle connection that closed leaves the pool. */
  forget(originKey: string, connection: Connection): void {
    const idle = this.idle.get(originKey);
    const index = idle ? idle.indexOf(connection) : -1;
    if (index !== -1) idle!.splice(index, 1);
  }

  /** Closes every idle connection (a test's cleanup, a handler let go of). */
  closeIdle(): void {
    for (const idle of this.idle.values()) for (const connection of idle.splice(0)) connection.destroy();
    this.idle.clear();
  }

  private connect(origin: Origin, proxy: Proxy | undefined): { socket: Socket; carrier?: Socket } {
    const policy = this.options.hostPolicy?.active() ? this.options.hostPolicy : undefined;
    // Node resolves no address literal, so the lookup below would not see one: checked here instead.
    // Through a proxy, the target's name is all there is to check (the proxy resolves it), and the
    // proxy itself, the operator's choice, is not checked.
    if (policy && (proxy || net.isIP(origin.hostname) !== 0)) {
      const reason = policy.refusal(origin.hostname, net.isIP(origin.hostname) !== 0 ? [origin.hostname] : []);
      if (reason !== undefined) return { socket: refusedSocket(reason) };
    }
    if (proxy) return this.connectThrough(origin, proxy);
    const lookup = policy ? { lookup: lookupWithin(policy) } : {};
    if (!origin.https)
      return {
        socket: net.connect({
          host: origin.hostname,
          port: origin.port,
          noDelay: true,
          keepAlive: true,
          keepAliveInitialDelay: 1_000,
          ...lookup,
        }),
      };
    const socket = tls.connect({
      host: origin.hostname,
      port: origin.port,
      ...lookup,
      // SNI takes a host name, never an address.
      ...(net.isIP(origin.hostname) === 0 ? { servername: origin.hostname } : {}),
      ALPNProtocols: ['http/1.1'],
      session: this.tlsSessions.get(origin.key),
      ...(this.options.ca ? { ca: this.options.ca } : {}),
    });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1_000);
    this.keepSessions(socket, origin.key);
    return { socket };
  }

  /**
   * A connection through a proxy: to an HTTP target, the proxy's socket itself (the request names its
   * absolute URL); to an HTTPS one, TLS with the target, through a CONNECT tunnel.
   */
  private connectThrough(origin: Origin, proxy: Proxy): { socket: Socket; carrier?: Socket } {
    const carrier = connectToProxy(proxy, this.options.ca);
    if (!origin.https) return { socket: carrier };
    const key = routeKey(origin, proxy);
    const authority = net.isIPv6(origin.hostname)
      ? `[${origin.hostname}]:${origin.port}`
      : `${origin.hostname}:${origin.port}`;
    const tunnel = tunnelThrough(carrier, {
      authority,
      ...(proxy.authorization ? { authorization: proxy.authorization } : {}),
    });
    const socket = tls.connect({
      socket: tunnel,
      ...(net.isIP(origin.hostname) === 0 ? { servername: origin.hostname } : {}),
      ALPNProtocols: ['http/1.1'],
      session: this.tlsSessions.get(key),
      ...(this.options.ca ? { ca: this.options.ca } : {}),
    });
    // The tunnel's failure (a refused CONNECT above all) is the connection's.
    tunnel.once('error', (error: Error) => socket.destroy(error));
    tunnel.once('close', () => socket.destroy());
    this.keepSessions(socket, key);
    return { socket, carrier };
  }

  /** Keeps the sessions the server gives `socket`, to resume the next connection to the same key. */
  private keepSessions(socket: tls.TLSSocket, key: string): void {
    socket.on('session', (session: Buffer) => {
      if (this.tlsSessions.size >= MAX_TLS_SESSIONS && !this.tlsSessions.has(key)) this.tlsSessions.clear();
      this.tlsSessions.set(key, session);
    });
  }
}

/** The pool of the gateway's calls to its upstreams, within the upstream host policy. */
export const upstreamPool = new ConnectionPool({
  hostPolicy: { active: upstreamHostPolicyActive, refusal: upstreamHostRefusal },
  // Upstream calls go through the environment's proxy where Node's own client would send them
  // (NODE_USE_ENV_PROXY=1); the store's and the credentials' calls go direct, as the AWS SDK's do.
  envProxy: true,
});

/** Closes the upstream pool's idle connections. */
export const closeIdleConnections = (): void => upstreamPool.closeIdle();
