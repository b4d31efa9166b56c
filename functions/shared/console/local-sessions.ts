import { randomBytes } from 'node:crypto';
import type { ConsoleUser } from './console-user.js';

/** A local session lasts an hour unless `GATEWAY_CONSOLE_SESSION_SECONDS` says otherwise. */
export const sessionLifetimeMs = (): number => {
  const seconds = Number(process.env.GATEWAY_CONSOLE_SESSION_SECONDS ?? 3600);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 3_600_000;
};

export interface IssuedSession {
  readonly token: string;
  /** Epoch milliseconds. */
  readonly expiresAt: number;
}

/**
 * Sessions of the local runtime's console: opaque random tokens held in this process's memory, sent
 * back in the Authorization header (never a cookie, so no request can carry one without the page's
 * script). A restart signs everyone out, which suits a laptop. The clock is a parameter so that
 * expiry is tested without waiting.
 */
export interface LocalSession {
  readonly user: ConsoleUser;
  /** For an operator signed in with an admin key: the key's hash, checked again at every request. */
  readonly adminKeyHash?: string;
  readonly expiresAt: number;
}

export class LocalSessions {
  private readonly sessions = new Map<string, LocalSession>();

  constructor(
    private readonly lifetimeMs: () => number = sessionLifetimeMs,
    private readonly now: () => number = Date.now,
  ) {}

  issue(user: ConsoleUser, adminKeyHash?: string): IssuedSession {
    this.dropExpired();
    const token = `gws_${randomBytes(32).toString('base64url')}`;
    const expiresAt = this.now() + this.lifetimeMs();
    this.sessions.set(token, { user, expiresAt, ...(adminKeyHash === undefined ? {} : { adminKeyHash }) });
    return { token, expiresAt };
  }

  /** The session behind a live token; `undefined` for an unknown, ended or expired one. */
  session(token: string): LocalSession | undefined {
    const session = this.sessions.get(token);
    if (!session) return undefined;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(token);
      return undefined;
    }
    return session;
  }

  /** The user behind a live token; `undefined` for an unknown, ended or expired one. */
  resolve(token: string): ConsoleUser | undefined {
    return this.session(token)?.user;
  }

  end(token: string): void {
    this.sessions.delete(token);
  }

  /** Ends every session of one user (their member record was changed or removed). */
  endAllOf(userId: string): void {
    for (const [token, session] of this.sessions) if (session.user.id === userId) this.sessions.delete(token);
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [token, session] of this.sessions) if (session.expiresAt <= now) this.sessions.delete(token);
  }
}

/** The local runtime's sessions: one process serves every function group there. */
export const localSessions = new LocalSessions();

export const looksLikeSessionToken = (value: string): boolean => /^gws_[A-Za-z0-9_-]{43}$/.test(value);
