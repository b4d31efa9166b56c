import { hash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_BODY_LENGTH = 48;
const PREFIX_LENGTH = 10;

/** Uniform base62 characters: bytes ≥ 248 are dropped so that no character is more likely than another. */
export const randomBase62 = (length: number): string => {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
};

export const hashApiKey = (key: string): string => hash('sha256', key, 'hex');

/** The part of a key that may be shown in lists and logs. */
export const keyPrefix = (key: string): string => key.slice(0, PREFIX_LENGTH);

export interface NewApiKey {
  readonly key: string;
  readonly hash: string;
  readonly prefix: string;
}

/** A fresh key: `sk-` and 48 random base62 characters (about 285 bits). */
export const generateApiKey = (): NewApiKey => {
  const key = `sk-${randomBase62(KEY_BODY_LENGTH)}`;
  return { key, hash: hashApiKey(key), prefix: keyPrefix(key) };
};

/** Keys we issue have this shape; anything else is rejected before touching the store. */
export const looksLikeApiKey = (value: string): boolean => /^sk-[0-9A-Za-z]{20,200}$/.test(value);

export const newId = (prefix: string): string => `${prefix}_${randomBase62(20)}`;
