import { createHash, createHmac, createSecretKey, type Hash, type Hmac, type KeyObject } from 'node:crypto';
import type { Checksum, SourceData } from '@smithy/types';

/**
 * The SHA-256 a client signs its requests with (the `sha256` of its configuration). Signature V4
 * makes five HMACs per request, four of them (the signing key's derivation) with keys that change
 * once a day, and the SDK's own class hands each key to `createHmac` as bytes, which Node turns into
 * a new `KeyObject` every time: about a tenth of a store call's CPU. Here each key becomes a
 * `KeyObject` once and is reused; the digests are the same bytes.
 */

/** Keys seen recently. Signing keys change daily and per region and service: a handful at a time. */
const keyObjects = new Map<string, KeyObject>();
const KEYS_KEPT = 64;

const bytesOf = (data: SourceData): Buffer =>
  typeof data === 'string'
    ? Buffer.from(data, 'utf8')
    : ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data);

const keyObjectFor = (secret: SourceData): KeyObject => {
  const bytes = bytesOf(secret);
  const id = bytes.toString('base64');
  let key = keyObjects.get(id);
  if (!key) {
    if (keyObjects.size >= KEYS_KEPT) keyObjects.clear();
    key = createSecretKey(bytes);
    keyObjects.set(id, key);
  }
  return key;
};

export class SigningSha256 implements Checksum {
  readonly digestLength = 32;
  private readonly isHmac: boolean;
  private hash: Hash | Hmac;
  private finished = false;

  constructor(private readonly secret?: SourceData) {
    this.isHmac = Boolean(secret);
    this.hash = this.start();
  }

  update(data: Uint8Array): void {
    if (this.finished) throw new Error('Attempted to update an already finished hash.');
    this.hash.update(typeof data === 'string' ? data : bytesOf(data));
  }

  async digest(): Promise<Uint8Array> {
    // An HMAC is finished by its digest; a plain hash can still be read again after more updates.
    let bytes: Buffer;
    if (!this.isHmac) bytes = (this.hash as Hash).copy().digest();
    else {
      this.finished = true;
      bytes = this.hash.digest();
    }
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  reset(): void {
    this.hash = this.start();
    this.finished = false;
  }

  private start(): Hash | Hmac {
    return this.isHmac ? createHmac('sha256', keyObjectFor(this.secret!)) : createHash('sha256');
  }
}
