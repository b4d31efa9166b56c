import { GatewayError } from '../errors.js';

export interface SignInLimitSettings {
  /** Failed sign-ins one user (e-mail address) may have within the window. */
  readonly perUser: number;
  /** Failed sign-ins one source address may have within the window, whatever the user. */
  readonly perAddress: number;
  /** How far back failures count, and so how long a lockout lasts at most. */
  readonly windowMs: number;
}

const positive = (name: string, fallback: number): number => {
  const value = Number(process.env[name] ?? fallback);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};

/**
 * 5 failures per user and 20 per address within 15 minutes, unless `GATEWAY_CONSOLE_SIGN_IN_MAX_FAILURES`,
 * `GATEWAY_CONSOLE_SIGN_IN_MAX_FAILURES_PER_ADDRESS` or `GATEWAY_CONSOLE_SIGN_IN_LOCKOUT_SECONDS` say otherwise.
 */
export const signInLimitSettings = (): SignInLimitSettings => ({
  perUser: positive('GATEWAY_CONSOLE_SIGN_IN_MAX_FAILURES', 5),
  perAddress: positive('GATEWAY_CONSOLE_SIGN_IN_MAX_FAILURES_PER_ADDRESS', 20),
  windowMs: positive('GATEWAY_CONSOLE_SIGN_IN_LOCKOUT_SECONDS', 900) * 1000,
});

const tooManyAttempts = (retryAfterMs: number) => {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new GatewayError(`Too many failed sign-ins: try again in ${seconds} seconds.`, {
    status: 429,
    type: 'requests',
    code: 'rate_limit_exceeded',
    headers: { 'retry-after': String(seconds) },
  });
};

/**
 * The local console's guard against password guessing: failed sign-ins are counted per user and per
 * source address over a sliding window; once either count is full, every sign-in of that user or
 * from that address is refused with 429 and `Retry-After` until the oldest failure leaves the window.
 * A success clears the user's count (not the address's, so that one known account cannot launder
 * guesses against others). Kept in this process's memory, as the local sessions are; the clock is a
 * parameter so that lockouts are tested without waiting.
 */
export class SignInLimits {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly settings: () => SignInLimitSettings = signInLimitSettings,
    private readonly now: () => number = Date.now,
  ) {}

  /** Throws 429 when the user or the address is locked out. */
  assertAllowed(user: string | undefined, address: string | undefined): void {
    const { perUser, perAddress, windowMs } = this.settings();
    const waits = [
      user === undefined ? 0 : this.waitFor(`user:${user}`, perUser, windowMs),
      address === undefined ? 0 : this.waitFor(`address:${address}`, perAddress, windowMs),
    ];
    const wait = Math.max(...waits);
    if (wait > 0) throw tooManyAttempts(wait);
  }

  recordFailure(user: string | undefined, address: string | undefined): void {
    const now = this.now();
    for (const key of [user === undefined ? undefined : `user:${user}`, address && `address:${address}`]) {
      if (!key) continue;
      const list = this.failures.get(key) ?? [];
      list.push(now);
      this.failures.set(key, list);
    }
  }

  recordSuccess(user: string): void {
    this.failures.delete(`user:${user}`);
  }

  /** Milliseconds until `key` may try again; 0 when it may now. Drops failures that left the window. */
  private waitFor(key: string, limit: number, windowMs: number): number {
    const list = this.failures.get(key);
    if (!list) return 0;
    const since = this.now() - windowMs;
    while (list.length > 0 && list[0]! <= since) list.shift();
    if (list.length === 0) {
      this.failures.delete(key);
      return 0;
    }
    return list.length >= limit ? list[list.length - limit]! - since : 0;
  }
}

/** The local runtime's limits: one process serves every sign-in there. */
export const localSignInLimits = new SignInLimits();
