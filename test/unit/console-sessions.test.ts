import { LocalSessions } from '../../functions/shared/console/local-sessions.js';
import { hashPassword, verifyPassword } from '../../functions/shared/console/local-passwords.js';

const user = { id: 'alice@example.com', accountId: 'acct_a', role: 'member' as const };

describe('local console sessions', () => {
  it('resolve until their lifetime is over, and never after', () => {
    let now = 1_000_000;
    const sessions = new LocalSessions(
      () => 60_000,
      () => now,
    );
    const { token, expiresAt } = sessions.issue(user);
    expect(expiresAt).toBe(1_060_000);
    now = 1_059_999;
    expect(sessions.resolve(token)).toEqual(user);
    now = 1_060_000;
    expect(sessions.resolve(token)).toBeUndefined();
    now = 1_000_000;
    // Once found expired, it is gone for good.
    expect(sessions.resolve(token)).toBeUndefined();
  });

  it('end one at a time or all of a user at once, and tokens are unguessable and distinct', () => {
    const sessions = new LocalSessions();
    const first = sessions.issue(user);
    const second = sessions.issue(user);
    const other = sessions.issue({ ...user, id: 'bob@example.com' });
    expect(first.token).not.toBe(second.token);
    expect(first.token).toMatch(/^gws_[A-Za-z0-9_-]{43}$/);
    sessions.end(first.token);
    expect(sessions.resolve(first.token)).toBeUndefined();
    expect(sessions.resolve(second.token)).toEqual(user);
    sessions.endAllOf(user.id);
    expect(sessions.resolve(second.token)).toBeUndefined();
    expect(sessions.resolve(other.token)?.id).toBe('bob@example.com');
  });
});

describe('local member passwords', () => {
  it('verify the right password only, and never a malformed hash', async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).not.toContain('correct horse');
    await expect(verifyPassword('correct horse', stored)).resolves.toBe(true);
    await expect(verifyPassword('correct hors', stored)).resolves.toBe(false);
    for (const malformed of [null, undefined, '', 'plain', 'scrypt$$', 'md5$a$b']) {
      await expect(verifyPassword('correct horse', malformed)).resolves.toBe(false);
    }
  });
});
