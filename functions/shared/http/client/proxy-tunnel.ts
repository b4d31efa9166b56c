import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';

/**
 * A tunnel through an HTTP proxy to an HTTPS target (`CONNECT host:port`), as a stream the target's
 * TLS runs on. The TLS handshake starts at once: what it writes waits here until the proxy has said
 * yes, so a connection is handed out (and its request written) without waiting for the tunnel.
 */

/** The longest answer to a CONNECT read before it is given up as no answer at all. */
const MAX_CONNECT_HEAD_BYTES = 16 * 1024;
const STATUS_LINE = /^HTTP\/1\.[01] (\d{3})(?: |\r|$)/;

/**
 * The proxy would not open the tunnel: a connection that could not be made, as a refused connection
 * is. Its message names the target and the status, never the proxy's credentials.
 */
export class ProxyTunnelError extends Error {
  override readonly name = 'ProxyTunnelError';
  readonly code = 'ERR_PROXY_TUNNEL';

  constructor(
    readonly target: string,
    /** The proxy's status, when it sent one. */
    readonly proxyStatus: number | undefined,
  ) {
    super(
      proxyStatus === undefined
        ? `the proxy gave no usable answer to CONNECT ${target}`
        : `the proxy refused CONNECT ${target} (status ${proxyStatus})`,
    );
  }
}

export interface TunnelRequest {
  /** `host:port` of the target, IPv6 addresses in brackets. */
  readonly authority: string;
  /** `Basic …` for the proxy. */
  readonly authorization?: string;
}

class Tunnel extends Duplex {
  private open = false;
  private head: Buffer[] = [];
  private headBytes = 0;
  /** Writes made before the proxy answered: sent in order once it has. */
  private waiting: { chunk: Buffer; callback: (error?: Error | null) => void }[] = [];

  constructor(
    private readonly carrier: Socket,
    private readonly request: TunnelRequest,
  ) {
    super();
    let head = `CONNECT ${request.authority} HTTP/1.1\r\nhost: ${request.authority}\r\n`;
    if (request.authorization) head += `proxy-authorization: ${request.authorization}\r\n`;
    carrier.write(`${head}\r\n`, 'latin1');
    carrier.on('data', (chunk: Buffer) => {
      if (this.open) {
        if (!this.push(chunk)) carrier.pause();
      } else this.readAnswer(chunk);
    });
    carrier.on('end', () => {
      if (this.open) this.push(null);
      else this.destroy(new ProxyTunnelError(request.authority, undefined));
    });
    carrier.on('error', (error: Error) => this.destroy(error));
    carrier.on('close', () => this.destroy());
  }

  private readAnswer(chunk: Buffer): void {
    this.head.push(chunk);
    this.headBytes += chunk.length;
    const bytes = Buffer.concat(this.head, this.headBytes);
    const end = bytes.indexOf('\r\n\r\n');
    if (end === -1) {
      if (this.headBytes > MAX_CONNECT_HEAD_BYTES)
        this.destroy(new ProxyTunnelError(this.request.authority, undefined));
      return;
    }
    this.head = [];
    const match = STATUS_LINE.exec(bytes.toString('latin1', 0, Math.min(end + 2, 64)));
    const status = match ? Number(match[1]) : undefined;
    if (status === undefined || status < 200 || status > 299) {
      this.destroy(new ProxyTunnelError(this.request.authority, status));
      return;
    }
    this.open = true;
    const rest = bytes.subarray(end + 4);
    if (rest.length > 0) this.push(rest);
    for (const { chunk: queued, callback } of this.waiting.splice(0)) this.carrier.write(queued, callback);
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.open) this.carrier.write(chunk, callback);
    else this.waiting.push({ chunk, callback });
  }

  override _read(): void {
    this.carrier.resume();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.carrier.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.waiting = [];
    this.carrier.destroy();
    callback(error);
  }
}

/** A tunnel through the proxy on `carrier` (connected, or connecting, to the proxy). */
export const tunnelThrough = (carrier: Socket, request: TunnelRequest): Duplex => new Tunnel(carrier, request);
