/**
 * Credentials recognised by their shape or by the name they are given, whoever they belong to: what
 * an upstream may echo of a request (headers, signed URLs, query strings) and what a client may put
 * where it should not. Known secrets (see redact-secrets.ts) are removed before these run.
 */

/** What a removed credential is replaced with; nothing any rule matches again. */
export const REDACTED = '[redacted]';

export interface CredentialPattern {
  readonly find: RegExp;
  readonly replace: string | ((match: string) => string);
  /** A cheaper test that every text `find` matches in passes: where it fails, `find` is not run. */
  readonly present?: RegExp;
}

/**
 * Names whose value is a credential: HTTP headers, query parameters (`?key=`, SigV4 presigned URLs,
 * SAS `sig=`), JSON fields and environment variables. Longer names first, so that `x-api-key` wins
 * over `key`.
 */
export const CREDENTIAL_NAMES: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'api_key',
  'apikey',
  'x-amz-security-token',
  'x-amz-signature',
  'x-amz-credential',
  'aws_access_key_id',
  'aws_secret_access_key',
  'aws_session_token',
  'secretaccesskey',
  'secret_access_key',
  'sessiontoken',
  'session_token',
  'accesskeyid',
  'access_key_id',
  'access_token',
  'refresh_token',
  'id_token',
  'client_secret',
  'password',
  'secret',
  'token',
  'key',
  'signature',
  'sig',
  'credential',
].sort((a, b) => b.length - a.length);

/**
 * Between a name and its value: `=` (query strings, SigV4 header parameters), `:` (headers, JSON,
 * YAML), URL-encoded `%3D`, with the quotes and backslashes of JSON and of JSON inside JSON.
 */
const BEFORE_SEPARATOR = String.raw`\\*["']?\s*`;
const SEPARATOR = String.raw`(?:[:=]|%3[Dd])`;
const AFTER_SEPARATOR = String.raw`\s*\\*["']?`;
/** An authentication scheme, kept: it tells a reader what was there. */
const SCHEME = String.raw`(?:(?:Bearer|Basic|Token|Bot|AWS4-HMAC-SHA256)\s+)?`;
/** A value runs to the next quote, space, separator of a query string or JSON, or escape (but `\/`). */
const VALUE = String.raw`(?:\[redacted\]|[^\s"'\\&,;<>{}()\[\]]|\\\/)+`;

/**
 * Not glued to a longer word (`monkey=` names no key), but possibly right after a URL-encoded
 * delimiter (`%26key%3D…` in a URL inside a URL).
 */
const WORD_START = String.raw`(?:(?<![A-Za-z0-9_-])|(?<=%[0-9A-Fa-f]{2}))`;
/** A known secret already removed from inside a token (see redact-secrets.ts) does not end it. */
const TOKEN_CHARACTER = String.raw`(?:[A-Za-z0-9_-]|\[redacted\])`;

const names = CREDENTIAL_NAMES.map((name) => name.replaceAll('-', '\\-')).join('|');

/**
 * Every log line is scanned with these, so each is cheap where it finds nothing. A named credential
 * is found from its separator looking back for the name, which also catches a name that ends the
 * value of the one before (`password=secret\:value`); the engine tries that look-behind at every
 * separator, four times the cost of serializing a log line, so it runs only on text that holds a name
 * followed by a separator at all. The bearer pattern starts at `Bearer` and checks what precedes it
 * after.
 */
export const credentialPatterns: readonly CredentialPattern[] = [
  {
    find: new RegExp(
      String.raw`(?<=${WORD_START}(?:${names})${BEFORE_SEPARATOR})(${SEPARATOR}${AFTER_SEPARATOR}${SCHEME})${VALUE}`,
      'gi',
    ),
    replace: `$1${REDACTED}`,
    present: new RegExp(String.raw`(?:${names})${BEFORE_SEPARATOR}${SEPARATOR}`, 'i'),
  },
  // A bearer token quoted without its header name.
  {
    find: new RegExp(String.raw`(Bearer(?<=${WORD_START}Bearer)\s+)[A-Za-z0-9._~+/=-]{8,}`, 'gi'),
    replace: `$1${REDACTED}`,
  },
  // Gateway keys (and OpenAI's, Anthropic's): `sk-` and a long token; the 10-character prefix may stay.
  {
    find: new RegExp(String.raw`sk-${TOKEN_CHARACTER}{20,}`, 'g'),
    replace: (match) => `${match.slice(0, 10).split('[')[0]}${REDACTED}`,
  },
  // AWS access key ids: long-term (AKIA) and temporary (ASIA).
  { find: /(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])/g, replace: REDACTED },
  // STS session tokens, raw or URL-encoded.
  { find: /(?:IQoJb3JpZ2lu|FwoGZXIvYXdz)[A-Za-z0-9/+=%]{16,}/g, replace: REDACTED },
  // Google API keys.
  { find: /AIza[0-9A-Za-z_-]{35}/g, replace: REDACTED },
  // JSON Web Tokens (OAuth access tokens, signed requests).
  { find: /eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, replace: REDACTED },
];

/** The text with every credential pattern applied; the same string when nothing matched. */
export const removeCredentialPatterns = (text: string): string => {
  let result = text;
  for (const { find, replace, present } of credentialPatterns) {
    if (present && !present.test(result)) continue;
    result = typeof replace === 'string' ? result.replace(find, replace) : result.replace(find, replace);
  }
  return result;
};
