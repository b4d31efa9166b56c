import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const KEY_LENGTH = 32;

interface ScryptCost {
  /** log2 of scrypt's N (CPU and memory cost). */
  readonly log2N: number;
  readonly r: number;
  readonly p: number;
}

/** OWASP's Password Storage Cheat Sheet: scrypt with N = 2^17, r = 8, p = 1 (128 MiB per hash). */
export const CURRENT_COST: ScryptCost = { log2N: 17, r: 8, p: 1 };

/** Hashes written before the cost was named in them: Node's defaults (N = 2^14, r = 8, p = 1). */
const LEGACY_COST: ScryptCost = { log2N: 14, r: 8, p: 1 };

const derive = (password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> => {
  const options: ScryptOptions = {
    N: 2 ** cost.log2N,
    r: cost.r,
    p: cost.p,
    // scrypt needs 128 · N · r bytes; Node refuses more than 32 MiB unless told.
    maxmem: 129 * 2 ** cost.log2N * cost.r * cost.p + 2 ** 20,
  };
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
};

interface StoredHash {
  readonly cost: ScryptCost;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

const costPart = /^(?:[1-9]|1\d|20)$/;
const smallPart = /^[1-9]$/;

/** `scrypt$<log2 N>$<r>$<p>$<salt>$<hash>`, or the older `scrypt$<salt>$<hash>`; undefined if malformed. */
const parse = (stored: string | null | undefined): StoredHash | undefined => {
  const parts = (stored ?? '').split('$');
  if (parts[0] !== 'scrypt') return undefined;
  if (parts.length === 3 && parts[1] && parts[2]) {
    return { cost: LEGACY_COST, salt: Buffer.from(parts[1], 'base64url'), hash: Buffer.from(parts[2], 'base64url') };
  }
  const [, log2N = '', r = '', p = '', salt, hash] = parts;
  if (parts.length !== 6 || !costPart.test(log2N) || !smallPart.test(r) || !smallPart.test(p) || !salt || !hash)
    return undefined;
  return {
    cost: { log2N: Number(log2N), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt, 'base64url'),
    hash: Buffer.from(hash, 'base64url'),
  };
};

/** How a local member's password is kept: scrypt at `CURRENT_COST`, the cost written beside the hash. */
export const hashPassword = async (password: string, cost: ScryptCost = CURRENT_COST): Promise<string> => {
  const salt = randomBytes(16);
  const hash = await derive(password, salt, cost);
  return ['scrypt', cost.log2N, cost.r, cost.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
};

/** Compares in constant time, at the cost the hash was made with; a malformed stored hash never matches. */
export const verifyPassword = async (password: string, stored: string | null | undefined): Promise<boolean> => {
  const parsed = parse(stored);
  if (!parsed || parsed.hash.length !== KEY_LENGTH) return false;
  const actual = await derive(password, parsed.salt, parsed.cost);
  return timingSafeEqual(parsed.hash, actual);
};

/** Whether a stored hash is weaker than `CURRENT_COST`: the next successful sign-in rewrites it. */
export const needsRehash = (stored: string): boolean => {
  const cost = parse(stored)?.cost;
  return !cost || cost.log2N < CURRENT_COST.log2N || cost.r < CURRENT_COST.r || cost.p < CURRENT_COST.p;
};

/**
 * A hash of nothing anyone knows, at the current cost: an unknown address is checked against it, so
 * the time a refusal takes does not tell which addresses exist.
 */
let decoy: Promise<string> | undefined;
export const decoyHash = (): Promise<string> => (decoy ??= hashPassword(randomBytes(16).toString('base64url')));
