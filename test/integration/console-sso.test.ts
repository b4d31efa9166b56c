import { randomBytes } from 'node:crypto';
import { remoteTarget } from '../support/gateway-target.js';
import { pkceChallenge, startFakeCognito, type FakeCognito } from '../support/fake-cognito.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * The console's federated sign-in (`-c ssoProvider`), through the real console handler, against a real
 * HTTP emulator of the pool's token endpoint and JWKS: a code and its PKCE verifier open the same
 * session a password does, and nothing else does.
 */
const describeLocal = remoteTarget ? describe.skip : describe;

describeLocal('console sign-in through single sign-on', () => {
  let gateway: TestGateway;
  let cognito: FakeCognito;
  let account: string;
  const saved: Record<string, string | undefined> = {};
  const redirectUri = 'https://api.example/prod/console/';

  const setEnv = (name: string, value: string | undefined) => {
    if (!(name in saved)) saved[name] = process.env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  const member = async (email: string, role: string) => {
    expect([200, 201]).toContain(
      (await gateway.admin('PUT', `/admin/v1/members/${email}`, { accountId: account, role })).status,
    );
  };
  const verifier = () => randomBytes(32).toString('base64url');
  /** What the page does on its return from the sign-in domain. */
  const signIn = (body: object) => gateway.request('POST', '/console/api/session', { body });
  const codeFor = (email: string, options: { clientId?: string; claims?: Record<string, unknown> } = {}) => {
    const codeVerifier = verifier();
    const code = cognito.authorizationCode(email, {
      redirectUri,
      codeChallenge: pkceChallenge(codeVerifier),
      ...options,
    });
    return { code, codeVerifier };
  };
  const lastFailure = async () =>
    (await gateway.admin('GET', '/admin/v1/audit?action=console.sign-in-failed&limit=1')).body.data[0];

  beforeAll(async () => {
    gateway = await startTestGateway();
    cognito = await startFakeCognito();
    account = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'federated' })).body.id;
    setEnv('GATEWAY_CONSOLE_AUTH', undefined);
    setEnv('GATEWAY_CONSOLE_USER_POOL_ID', cognito.userPoolId);
    setEnv('GATEWAY_CONSOLE_CLIENT_ID', cognito.clientId);
    setEnv('GATEWAY_CONSOLE_COGNITO_ENDPOINT', cognito.endpoint);
    setEnv('GATEWAY_CONSOLE_ADMIN_MFA', undefined);
    setEnv('GATEWAY_CONSOLE_SSO_PROVIDER', 'Corp-IdP');
    setEnv('GATEWAY_CONSOLE_SSO_CLIENT_ID', cognito.ssoClientId);
    setEnv('GATEWAY_CONSOLE_SSO_DOMAIN', cognito.endpoint);
    setEnv('GATEWAY_CONSOLE_SSO_REDIRECT_URI', redirectUri);
  });

  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await cognito?.close();
    await gateway?.close();
  });

  afterEach(() => setEnv('GATEWAY_CONSOLE_ADMIN_MFA', undefined));

  it('tells the page the parts of the authorize URL, and nothing secret', async () => {
    const config = await gateway.request('GET', '/console/api/config');
    expect(config.status).toBe(200);
    expect(config.body).toEqual({
      auth: 'cognito',
      sso: { provider: 'Corp-IdP', clientId: cognito.ssoClientId, domain: cognito.endpoint, redirectUri },
    });
  });

  it("opens a member's session from a good code, with the redirect URI and verifier the authorize request used", async () => {
    await member('sam@federated.example', 'member');
    const { code, codeVerifier } = codeFor('sam@federated.example');

    const signedIn = await signIn({ code, codeVerifier });
    expect(signedIn.status).toBe(201);
    expect(signedIn.body.user).toEqual({ id: 'sam@federated.example', accountId: account, role: 'member' });
    expect(cognito.tokenRequests.at(-1)).toEqual({
      grant_type: 'authorization_code',
      client_id: cognito.ssoClientId,
      code,
      redirect_uri: redirectUri,
      code_verifier: codeVerifier,
    });
    const me = await gateway.request('GET', '/console/api/me', { key: signedIn.body.token });
    expect(me.status).toBe(200);
    expect(me.body.user ?? me.body).toMatchObject({ id: 'sam@federated.example' });

    const { data } = (await gateway.admin('GET', '/admin/v1/audit?action=console.sign-in&limit=1')).body;
    expect(data[0]).toMatchObject({ actor: { kind: 'console-user', id: 'sam@federated.example' } });
  });

  it.each([
    ['an unknown code', async () => ({ code: 'not-a-code', codeVerifier: verifier() })],
    ['a code with another verifier', async () => ({ ...codeFor('sam@federated.example'), codeVerifier: verifier() })],
    [
      'a code used twice',
      async () => {
        const once = codeFor('sam@federated.example');
        expect((await signIn(once)).status).toBe(201);
        return once;
      },
    ],
  ])('refuses %s with a 401 envelope, recorded as a failed sign-in', async (_, body) => {
    await member('sam@federated.example', 'member');
    const answer = await signIn(await body());
    expect(answer.status).toBe(401);
    expect(answer.body.error).toMatchObject({ code: 'invalid_sso_code', param: 'code' });
    expect(answer.body.error.message).not.toMatch(/invalid_grant/);
    expect(await lastFailure()).toMatchObject({ actor: { kind: 'console-user', id: 'sso:unknown' } });
  });

  it('refuses an ID token issued for another app client of the pool', async () => {
    await member('sam@federated.example', 'member');
    const answer = await signIn(codeFor('sam@federated.example', { clientId: cognito.clientId }));
    expect(answer.status).toBe(401);
    expect(answer.body.error.code).toBe('invalid_sso_code');
  });

  it.each([
    ['false', false],
    ['"false"', 'false'],
    ['absent', undefined],
    ['1', 1],
  ])('refuses an address whose email_verified is %s', async (_, claim) => {
    await member('una@federated.example', 'member');
    const answer = await signIn(codeFor('una@federated.example', { claims: { email_verified: claim } }));
    expect(answer.status).toBe(401);
  });

  it('accepts email_verified as the string "true", as a federated provider may send it', async () => {
    await member('vic@federated.example', 'member');
    expect((await signIn(codeFor('vic@federated.example', { claims: { email_verified: 'true' } }))).status).toBe(201);
  });

  it('refuses someone the provider knows who is not a member', async () => {
    const answer = await signIn(codeFor('stranger@federated.example'));
    expect(answer.status).toBe(403);
    expect(answer.body.error.message).toMatch(/not a member/);
  });

  it("refuses an operator whose provider reported no second factor, and admits one whose token's amr has mfa", async () => {
    await member('opal@federated.example', 'admin');
    const refused = await signIn(codeFor('opal@federated.example', { claims: { amr: ['pwd'] } }));
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/password and an authenticator code/);

    const signedIn = await signIn(codeFor('opal@federated.example', { claims: { amr: ['pwd', 'mfa'] } }));
    expect(signedIn.status).toBe(201);
    expect(signedIn.body.user.role).toBe('admin');
    expect((await gateway.request('GET', '/admin/v1/accounts', { key: signedIn.body.token })).status).toBe(200);
  });

  it('lets an operator in without a second factor when the stack relaxes the rule', async () => {
    setEnv('GATEWAY_CONSOLE_ADMIN_MFA', 'optional');
    await member('otto@federated.example', 'admin');
    expect((await signIn(codeFor('otto@federated.example'))).status).toBe(201);
  });

  it('answers 503 in the envelope, never a 500, when the sign-in domain cannot be reached', async () => {
    setEnv('GATEWAY_CONSOLE_SSO_DOMAIN', 'http://127.0.0.1:9');
    try {
      const answer = await signIn({ code: 'any', codeVerifier: verifier() });
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe('sso_unavailable');
    } finally {
      setEnv('GATEWAY_CONSOLE_SSO_DOMAIN', cognito.endpoint);
    }
  });

  it('refuses a code body when the stack offers no single sign-on', async () => {
    setEnv('GATEWAY_CONSOLE_SSO_CLIENT_ID', undefined);
    try {
      expect((await gateway.request('GET', '/console/api/config')).body).toEqual({ auth: 'cognito' });
      const answer = await signIn(codeFor('sam@federated.example'));
      expect(answer.status).toBe(403);
    } finally {
      setEnv('GATEWAY_CONSOLE_SSO_CLIENT_ID', cognito.ssoClientId);
    }
  });
});
