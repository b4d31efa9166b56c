import {
  createHash,
  createHmac,
  generateKeyPairSync,
  randomBytes,
  randomUUID,
  sign,
  type KeyObject,
} from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * A real HTTP server speaking the part of Cognito's user-pool API the console uses (POST /,
 * `x-amz-target: AWSCognitoIdentityProviderService.<Operation>`, JSON 1.1) with its challenge rules,
 * and serving the pool's JWKS at `/<pool id>/.well-known/jwks.json`. ID tokens are RS256 JWTs with
 * Cognito's claims, signed by a key made at start. Point the console at it through
 * `GATEWAY_CONSOLE_COGNITO_ENDPOINT`. It is also the pool's sign-in domain for the SSO client: codes
 * from `authorizationCode` are redeemed at `POST /oauth2/token` (form-encoded, PKCE S256), as
 * Cognito's token endpoint does.
 */

export interface FakeCognitoUser {
  readonly email: string;
  password: string;
  /** Cognito's user name (a UUID, as for a pool that signs in by e-mail alias). */
  readonly username: string;
  newPasswordRequired: boolean;
  /** The TOTP secret, once verified; TOTP is the user's MFA once `mfaEnabled`. */
  totpSecret?: string;
  pendingSecret?: string;
  mfaEnabled: boolean;
}

export interface CognitoCallRecord {
  readonly operation: string;
  readonly body: Record<string, any>;
}

export interface FakeCognito {
  readonly endpoint: string;
  readonly userPoolId: string;
  readonly clientId: string;
  /** Whether the pool requires MFA (MFA_SETUP for users without it) rather than offering it. */
  poolRequiresMfa: boolean;
  addUser(email: string, password: string, options?: Partial<FakeCognitoUser>): FakeCognitoUser;
  user(email: string): FakeCognitoUser | undefined;
  /** An ID token as Cognito would sign it, with any claim overridden (`undefined` removes it). */
  idToken(email: string, overrides?: Record<string, unknown>): string;
  readonly calls: CognitoCallRecord[];
  /** The federated sign-in's app client. */
  readonly ssoClientId: string;
  /**
   * A code, as the sign-in domain gives it after the identity provider signed `email` in; redeeming
   * it gives an ID token for `clientId` (the SSO client unless told) with `claims` overridden.
   */
  authorizationCode(email: string, grant: SsoGrant): string;
  /** The bodies `POST /oauth2/token` was given. */
  readonly tokenRequests: Record<string, string>[];
  /**
   * Who the identity provider signs in at `GET /oauth2/authorize`, which then sends the browser back
   * to `redirect_uri` with a code and the request's `state`, as the hosted sign-in does.
   */
  ssoUser: string | undefined;
  /** The queries `GET /oauth2/authorize` was given. */
  readonly authorizeRequests: Record<string, string>[];
  close(): Promise<void>;
}

export interface SsoGrant {
  readonly redirectUri: string;
  /** `base64url(sha256(verifier))`, as the authorize request carried it. */
  readonly codeChallenge: string;
  readonly clientId?: string;
  readonly claims?: Record<string, unknown>;
}

/** The S256 challenge of a PKCE verifier (RFC 7636). */
export const pkceChallenge = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

const base32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

const fromBase32 = (text: string): Buffer => {
  let bits = '';
  for (const char of text.replace(/=+$/, '')) bits += base32.indexOf(char).toString(2).padStart(5, '0');
  const bytes: number[] = [];
  for (let index = 0; index + 8 <= bits.length; index += 8) bytes.push(parseInt(bits.slice(index, index + 8), 2));
  return Buffer.from(bytes);
};

/** RFC 6238 TOTP (SHA-1, 6 digits, 30 s steps), as an authenticator app computes it. */
export const totpCode = (secret: string, at = Date.now()): string => {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30_000)));
  const digest = createHmac('sha1', fromBase32(secret)).update(counter).digest();
  const offset = digest[digest.length - 1]! & 0x0f;
  return String((digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
};

const newSecret = (): string => [...randomBytes(32)].map((byte) => base32[byte % 32]).join('');

const jwt = (key: KeyObject, kid: string, claims: Record<string, unknown>): string => {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const unsigned = `${part({ kid, alg: 'RS256' })}.${part(claims)}`;
  return `${unsigned}.${sign('RSA-SHA256', Buffer.from(unsigned), key).toString('base64url')}`;
};

export const startFakeCognito = async (region = 'us-east-1'): Promise<FakeCognito> => {
  const userPoolId = `${region}_FakePool1`;
  const clientId = 'fakeconsoleclient';
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  const users = new Map<string, FakeCognitoUser>();
  /** Challenge sessions: what step each is at, and for whom. */
  const sessions = new Map<string, { email: string; step: string }>();
  const accessTokens = new Map<string, string>();
  const calls: CognitoCallRecord[] = [];
  const ssoClientId = 'fakessoclient';
  const codes = new Map<string, SsoGrant & { email: string }>();
  const tokenRequests: Record<string, string>[] = [];
  const authorizeRequests: Record<string, string>[] = [];

  const idToken = (email: string, overrides: Record<string, unknown> = {}): string => {
    const user = users.get(email);
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      sub: user?.username ?? randomUUID(),
      email,
      email_verified: true,
      iss: `https://cognito-idp.${region}.amazonaws.com/${userPoolId}`,
      aud: clientId,
      token_use: 'id',
      auth_time: now,
      iat: now,
      exp: now + 3600,
      jti: randomUUID(),
      origin_jti: randomUUID(),
      'cognito:username': user?.username,
      ...overrides,
    };
    for (const [name, value] of Object.entries(claims)) if (value === undefined) delete claims[name];
    return jwt(privateKey, kid, claims);
  };

  const tokens = (user: FakeCognitoUser) => {
    const accessToken = randomBytes(24).toString('base64url');
    accessTokens.set(accessToken, user.email);
    return {
      AuthenticationResult: {
        IdToken: idToken(user.email),
        AccessToken: accessToken,
        ExpiresIn: 3600,
        TokenType: 'Bearer',
      },
      ChallengeParameters: {},
    };
  };
  const challenge = (user: FakeCognitoUser, step: string) => {
    const session = randomBytes(24).toString('base64url');
    sessions.set(session, { email: user.email, step });
    return { ChallengeName: step, Session: session, ChallengeParameters: { USER_ID_FOR_SRP: user.username } };
  };
  /** After the password (and a new one), what Cognito asks next. */
  const afterPassword = (user: FakeCognitoUser) => {
    if (user.mfaEnabled) return challenge(user, 'SOFTWARE_TOKEN_MFA');
    if (fake.poolRequiresMfa) return challenge(user, 'MFA_SETUP');
    return tokens(user);
  };
  class Refusal extends Error {}
  const refuse = (type: string): never => {
    throw Object.assign(new Refusal(type), { type });
  };
  const userBySession = (session: unknown, step: string): FakeCognitoUser => {
    const found = typeof session === 'string' ? sessions.get(session) : undefined;
    if (!found || found.step !== step) refuse('NotAuthorizedException');
    sessions.delete(session as string);
    return users.get(found!.email)!;
  };

  const operations: Record<string, (body: Record<string, any>) => object> = {
    InitiateAuth: (body) => {
      if (body.AuthFlow !== 'USER_PASSWORD_AUTH' || body.ClientId !== clientId) refuse('InvalidParameterException');
      const user = users.get(String(body.AuthParameters?.USERNAME).toLowerCase());
      if (!user || user.password !== body.AuthParameters?.PASSWORD) refuse('NotAuthorizedException');
      return user!.newPasswordRequired ? challenge(user!, 'NEW_PASSWORD_REQUIRED') : afterPassword(user!);
    },
    RespondToAuthChallenge: (body) => {
      // MFA_SETUP is answered with the session VerifySoftwareToken gave, not the challenge's own.
      const step = body.ChallengeName === 'MFA_SETUP' ? 'MFA_SETUP_ANSWER' : String(body.ChallengeName);
      const user = userBySession(body.Session, step);
      const responses = body.ChallengeResponses ?? {};
      if (responses.USERNAME !== user.username && responses.USERNAME !== user.email) refuse('NotAuthorizedException');
      switch (body.ChallengeName) {
        case 'NEW_PASSWORD_REQUIRED':
          user.password = responses.NEW_PASSWORD;
          user.newPasswordRequired = false;
          return afterPassword(user);
        case 'SOFTWARE_TOKEN_MFA':
          if (responses.SOFTWARE_TOKEN_MFA_CODE !== totpCode(user.totpSecret!)) refuse('CodeMismatchException');
          return tokens(user);
        case 'MFA_SETUP':
          return tokens(user);
        default:
          return refuse('InvalidParameterException');
      }
    },
    AssociateSoftwareToken: (body) => {
      const secret = newSecret();
      if (body.AccessToken) {
        const email = accessTokens.get(body.AccessToken);
        if (!email) refuse('NotAuthorizedException');
        users.get(email!)!.pendingSecret = secret;
        return { SecretCode: secret };
      }
      const user = userBySession(body.Session, 'MFA_SETUP');
      user.pendingSecret = secret;
      const session = randomBytes(24).toString('base64url');
      sessions.set(session, { email: user.email, step: 'ASSOCIATED' });
      return { SecretCode: secret, Session: session };
    },
    VerifySoftwareToken: (body) => {
      const user = body.AccessToken
        ? users.get(accessTokens.get(body.AccessToken) ?? refuse('NotAuthorizedException'))!
        : userBySession(body.Session, 'ASSOCIATED');
      if (!user.pendingSecret || body.UserCode !== totpCode(user.pendingSecret)) refuse('CodeMismatchException');
      user.totpSecret = user.pendingSecret;
      user.pendingSecret = undefined;
      if (body.AccessToken) return { Status: 'SUCCESS' };
      // Answering MFA_SETUP with this session finishes the sign-in; the pool turns TOTP on itself.
      user.mfaEnabled = true;
      const session = randomBytes(24).toString('base64url');
      sessions.set(session, { email: user.email, step: 'MFA_SETUP_ANSWER' });
      return { Status: 'SUCCESS', Session: session };
    },
    SetUserMFAPreference: (body) => {
      const email = accessTokens.get(body.AccessToken) ?? refuse('NotAuthorizedException');
      const user = users.get(email)!;
      if (body.SoftwareTokenMfaSettings?.Enabled) {
        if (!user.totpSecret) refuse('InvalidParameterException');
        user.mfaEnabled = true;
      }
      return {};
    },
  };
  const send = (response: ServerResponse, status: number, body: object) => {
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify(body));
  };
  /** Cognito's token endpoint: a code is good once, for its client, redirect URI and verifier. */
  const redeem = (response: ServerResponse, form: Record<string, string>) => {
    tokenRequests.push(form);
    const grant = codes.get(form.code ?? '');
    if (form.code) codes.delete(form.code);
    const send400 = (error: string) => {
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error }));
    };
    if (form.grant_type !== 'authorization_code') return send400('unsupported_grant_type');
    if (form.client_id !== ssoClientId) return send400('invalid_client');
    if (
      !grant ||
      grant.redirectUri !== form.redirect_uri ||
      !form.code_verifier ||
      pkceChallenge(form.code_verifier) !== grant.codeChallenge
    )
      return send400('invalid_grant');
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id_token: idToken(grant.email, { aud: grant.clientId ?? ssoClientId, ...grant.claims }),
        access_token: randomBytes(24).toString('base64url'),
        refresh_token: randomBytes(24).toString('base64url'),
        expires_in: 3600,
        token_type: 'Bearer',
      }),
    );
  };
  const authorize = (request: IncomingMessage, response: ServerResponse) => {
    const query = Object.fromEntries(new URL(request.url!, 'http://fake').searchParams);
    authorizeRequests.push(query);
    const good =
      fake.ssoUser &&
      query.response_type === 'code' &&
      query.client_id === ssoClientId &&
      query.redirect_uri &&
      query.code_challenge &&
      query.code_challenge_method === 'S256';
    if (!good) {
      response.writeHead(400, { 'content-type': 'text/plain' });
      return response.end('invalid_request');
    }
    const code = fake.authorizationCode(fake.ssoUser!, {
      redirectUri: query.redirect_uri!,
      codeChallenge: query.code_challenge!,
    });
    const back = new URL(query.redirect_uri!);
    back.searchParams.set('code', code);
    if (query.state) back.searchParams.set('state', query.state);
    response.writeHead(302, { location: back.toString() });
    return response.end();
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    if (request.method === 'GET' && request.url === `/${userPoolId}/.well-known/jwks.json`) {
      return send(response, 200, { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }] });
    }
    if (request.method === 'GET' && request.url?.startsWith('/oauth2/authorize?')) return authorize(request, response);
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.method === 'POST' && request.url === '/oauth2/token') {
      return redeem(response, Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString())));
    }
    const operation = String(request.headers['x-amz-target'] ?? '').replace('AWSCognitoIdentityProviderService.', '');
    const handler = operations[operation];
    if (request.method !== 'POST' || !handler) return send(response, 400, { __type: 'UnknownOperationException' });
    const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, any>;
    calls.push({ operation, body });
    try {
      return send(response, 200, handler(body));
    } catch (error) {
      if (error instanceof Refusal)
        return send(response, 400, { __type: (error as Refusal & { type: string }).type, message: 'refused' });
      throw error;
    }
  };

  const sockets = new Set<Socket>();
  const server = createServer((request, response) => void handle(request, response));
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeCognito = {
    endpoint: `http://127.0.0.1:${port}`,
    userPoolId,
    clientId,
    poolRequiresMfa: false,
    addUser: (email, password, options = {}) => {
      const user: FakeCognitoUser = {
        email,
        password,
        username: randomUUID(),
        newPasswordRequired: false,
        mfaEnabled: false,
        ...options,
      };
      users.set(email, user);
      return user;
    },
    user: (email) => users.get(email),
    idToken,
    calls,
    ssoClientId,
    authorizationCode: (email, grant) => {
      const code = randomUUID();
      codes.set(code, { ...grant, email });
      return code;
    },
    tokenRequests,
    ssoUser: undefined,
    authorizeRequests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
  return fake;
};
