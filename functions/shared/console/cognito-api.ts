import type { CognitoSettings } from './console-user.js';

/**
 * Where the pool's public API is: Cognito's regional endpoint, or `GATEWAY_CONSOLE_COGNITO_ENDPOINT`
 * (an emulator of the user-pool API, for tests and offline development).
 */
export const cognitoEndpoint = (settings: CognitoSettings): string =>
  (process.env.GATEWAY_CONSOLE_COGNITO_ENDPOINT ?? `https://cognito-idp.${settings.region}.amazonaws.com`).replace(
    /\/+$/,
    '',
  );

export type CognitoCall<T> =
  | { readonly ok: true; readonly body: T }
  /** `type` is Cognito's error name (`NotAuthorizedException`, `CodeMismatchException`, …). */
  | { readonly ok: false; readonly type: string };

/**
 * One call of Cognito's public (unsigned) user-pool API, as its JSON 1.1 protocol has it. These
 * operations take no IAM credentials: the user's password, challenge session or access token is the
 * authorization.
 */
export const callCognito = async <T>(
  settings: CognitoSettings,
  action: string,
  body: object,
): Promise<CognitoCall<T>> => {
  const response = await fetch(`${cognitoEndpoint(settings)}/`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `AWSCognitoIdentityProviderService.${action}`,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const parsed = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.ok) return { ok: true, body: parsed as T };
  // The error name is `__type`, sometimes prefixed with a namespace (`…#NotAuthorizedException`).
  const type = typeof parsed.__type === 'string' ? parsed.__type.split('#').pop()! : `HTTP ${response.status}`;
  return { ok: false, type };
};
