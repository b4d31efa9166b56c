import { LocalSessions } from '../../functions/shared/console/local-sessions.js';
import { randomBytes, scryptSync } from 'node:crypto';
import { hashPassword, needsRehash, verifyPassword } from '../../functions/shared/console/local-passwords.js';

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

describe('local member password cost', () => {
  const legacyHash = (password: string): string => {
    // How hashes were written before the cost was named in them: scrypt at Node's defaults (N = 2^14).
    const salt = randomBytes(16);
    return `scrypt$${salt.toString('base64url')}$${scryptSync(password, salt, 32).toString('base64url')}`;
  };

  it("hashes at OWASP's scrypt cost (N = 2^17, r = 8, p = 1), written beside the hash", async () => {
    const stored = await hashPassword('correct horse');
    expect(stored).toMatch(/^scrypt\$17\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(needsRehash(stored)).toBe(false);
  });

  it('still verifies a hash stored at the old cost, and marks it for rehashing', async () => {
    const stored = legacyHash('old password');
    await expect(verifyPassword('old password', stored)).resolves.toBe(true);
    await expect(verifyPassword('old passwort', stored)).resolves.toBe(false);
    expect(needsRehash(stored)).toBe(true);
  });

  it('never verifies a hash whose cost fields are out of bounds or forged', async () => {
    const [, , , , salt, hash] = (await hashPassword('x')).split('$');
    for (const cost of ['0$8$1', '21$8$1', '17$0$1', '17$8$0', 'a$8$1', '17$8']) {
      await expect(verifyPassword('x', `scrypt$${cost}$${salt}$${hash}`)).resolves.toBe(false);
    }
  });
});
