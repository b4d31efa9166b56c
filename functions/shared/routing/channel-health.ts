/**
 * What this instance has seen of each channel lately. A channel that fails several times in a row, or
 * whose upstream asks us to back off (429 / 503 with Retry-After), cools down: it is tried only after
 * the healthy channels until its time is up. Memory per instance, on purpose: a shared record would
 * cost a store round trip on every request, and each instance learns within a few requests anyway.
 */

/** Consecutive retryable failures after which a channel cools down. */
export const FAILURES_BEFORE_COOLDOWN = 3;
/** The first cooldown; each further one in a row doubles, up to the maximum. */
export const BASE_COOLDOWN_MS = 30_000;
export const MAX_COOLDOWN_MS = 5 * 60_000;

interface Health {
  /** Retryable failures since the last success. */
  failures: number;
  /** Cooldowns since the last success, for the back-off. */
  cooldowns: number;
  /** Epoch ms until which the channel is cooling down; 0 when it is not. */
  coolUntil: number;
}

const health = new Map<string, Health>();

const entry = (channelId: string): Health => {
  let found = health.get(channelId);
  if (!found) {
    found = { failures: 0, cooldowns: 0, coolUntil: 0 };
    health.set(channelId, found);
  }
  return found;
};

/** A success closes the books on the channel's past failures. */
export const recordChannelSuccess = (channelId: string): void => {
  health.delete(channelId);
};

/**
 * A retryable failure. `retryAfterMs` is what the upstream asked for; it cools the channel at once
 * for that long, since it told us plainly it will refuse until then. Returns the epoch ms until which
 * the channel now cools down, or 0.
 */
export const recordChannelFailure = (channelId: string, retryAfterMs: number | undefined, now = Date.now()): number => {
  const record = entry(channelId);
  record.failures += 1;
  if (retryAfterMs !== undefined && retryAfterMs > 0) {
    record.coolUntil = Math.max(record.coolUntil, now + Math.min(retryAfterMs, MAX_COOLDOWN_MS));
    return record.coolUntil;
  }
  if (record.failures < FAILURES_BEFORE_COOLDOWN) return 0;
  // Past the threshold every failure (including the first probe after a cooldown) cools again, longer.
  const backOff = Math.min(BASE_COOLDOWN_MS * 2 ** record.cooldowns, MAX_COOLDOWN_MS);
  record.cooldowns += 1;
  record.coolUntil = now + backOff;
  return record.coolUntil;
};

/** Epoch ms until which the channel cools down, or 0. */
export const channelCoolingUntil = (channelId: string, now = Date.now()): number => {
  const until = health.get(channelId)?.coolUntil ?? 0;
  return until > now ? until : 0;
};

/**
 * The channels in the order to try them: the healthy ones in the order given, then those cooling
 * down, soonest back first. Cooling channels stay in the list: when every channel is cooling, trying
 * one still beats refusing the request.
 */
export const healthyFirst = <T extends { readonly id: string }>(channels: readonly T[], now = Date.now()): T[] => {
  if (health.size === 0) return [...channels];
  const healthy: T[] = [];
  const cooling: Array<{ channel: T; until: number }> = [];
  for (const channel of channels) {
    const until = channelCoolingUntil(channel.id, now);
    if (until === 0) healthy.push(channel);
    else cooling.push({ channel, until });
  }
  cooling.sort((a, b) => a.until - b.until);
  return [...healthy, ...cooling.map(({ channel }) => channel)];
};

/** Forgets everything: for tests, and for an admin change that makes past failures meaningless. */
export const resetChannelHealth = (): void => {
  health.clear();
};
