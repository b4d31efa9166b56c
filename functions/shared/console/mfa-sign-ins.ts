import { getMember, putMember, type Member } from '../store/members.js';

/**
 * Whether operators (`admin` role) must sign in to the console with TOTP: `GATEWAY_CONSOLE_ADMIN_MFA`
 * is `required` (the default) or `optional`. Anything else reads as `required`.
 */
export const adminMfaRequired = (): boolean => process.env.GATEWAY_CONSOLE_ADMIN_MFA !== 'optional';

/** How many MFA sign-ins of one member are remembered at once (browsers, devices). */
const KEPT = 10;

const claimsOf = (idToken: string): Record<string, unknown> => {
  try {
    return JSON.parse(Buffer.from(idToken.split('.')[1] ?? '', 'base64url').toString()) as Record<string, unknown>;
  } catch {
    return {};
  }
};

/** The sign-in an ID token belongs to (`origin_jti`, else `jti`), and when it expires (epoch seconds). */
export const signInOfToken = (idToken: string): { id: string; expiresAt: number } | undefined => {
  const claims = claimsOf(idToken);
  const id = [claims.origin_jti, claims.jti].find((value) => typeof value === 'string') as string | undefined;
  return id && typeof claims.exp === 'number' ? { id, expiresAt: claims.exp } : undefined;
};

/**
 * Remembers that a sign-in passed TOTP through the console. The ID token comes straight from Cognito
 * over TLS in the same request, so its claims are read, not verified; what makes it count is that
 * only the console's own sign-in writes it here. A token a user obtains from Cognito directly,
 * without the console, is never in the list, so it cannot carry the `admin` role.
 */
export const recordMfaSignIn = async (memberId: string, idToken: string, now = Date.now()): Promise<void> => {
  const signIn = signInOfToken(idToken);
  const member = await getMember(memberId);
  if (!signIn || !member) return;
  const live = (member.mfaSignIns ?? []).filter((kept) => kept.expiresAt * 1000 > now && kept.id !== signIn.id);
  await putMember({ ...member, mfaSignIns: [...live, signIn].slice(-KEPT) });
};

/** Whether this sign-in of the member passed TOTP through the console and has not expired. */
export const passedMfa = (member: Member, signInId: string | undefined, now = Date.now()): boolean =>
  signInId !== undefined &&
  (member.mfaSignIns ?? []).some((kept) => kept.id === signInId && kept.expiresAt * 1000 > now);
