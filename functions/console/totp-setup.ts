import type { CognitoSignIn } from '../shared/console/cognito-sign-in.js';

const ISSUER = 'model-gateway';

/**
 * What the page shows to set up TOTP: the secret as text (typed into an authenticator app), and the
 * same as an `otpauth://` URI (Google Authenticator's key-URI format), which apps accept pasted or as
 * a QR code drawn elsewhere; the console draws none and calls nobody else to draw one.
 */
export const totpSetupView = (email: string, setup: Extract<CognitoSignIn, { kind: 'mfa-setup' }>) => {
  const label = encodeURIComponent(`${ISSUER}:${email}`);
  const parameters = new URLSearchParams({
    secret: setup.secret,
    issuer: ISSUER,
    algorithm: 'SHA1',
    digits: '6',
    period: '30',
  });
  return {
    secret: setup.secret,
    otpauthUri: `otpauth://totp/${label}?${parameters.toString()}`,
    ...(setup.session === undefined ? {} : { session: setup.session }),
  };
};
