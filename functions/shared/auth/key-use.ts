import { log } from '../log.js';
import { noteKeyUsed } from '../store/keys.js';
import type { Principal } from './principal.js';

/**
 * When each key was last used, as the console shows it. One conditional write per key per minute per
 * instance, after the response: a busy key costs a few writes a minute, not one per request, and the
 * time shown is at most a minute old (per instance). The first request of a key in a minute pays the
 * write; `test/integration/store-calls-per-request.test.ts` counts it.
 */
export const KEY_USE_RESOLUTION_MS = 60_000;

/** Key id → when this instance last wrote its use (epoch ms). Pruned when it grows past `MAX_TRACKED`. */
const written = new Map<string, number>();
const MAX_TRACKED = 10_000;

/**
 * The write to record this use of the key, or undefined when this instance wrote one less than a
 * minute ago (or the principal is not a key).
 */
export const keyUseWrite = (principal: Principal, now = Date.now()): (() => Promise<void>) | undefined => {
  const { keyHash, keyId } = principal;
  if (!keyHash) return undefined;
  const last = written.get(keyId);
  if (last !== undefined && now - last < KEY_USE_RESOLUTION_MS) return undefined;
  if (written.size >= MAX_TRACKED) written.clear();
  written.set(keyId, now);
  return () =>
    noteKeyUsed(keyHash, new Date(now).toISOString()).catch((error: unknown) => {
      // A missed time is corrected by the next minute's write; the request itself is unaffected.
      written.delete(keyId);
      log.warn('could not record when a key was used', { keyId, error: String(error) });
    });
};

/** Forgets what was written (tests). */
export const resetKeyUse = (): void => written.clear();
