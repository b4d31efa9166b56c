import { remoteTarget } from '../support/gateway-target.js';
import { startFakeCognito, totpCode, type FakeCognito } from '../support/fake-cognito.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * The deployed console's sign-in, against a real HTTP emulator of Cognito's user-pool API and JWKS:
 * TOTP challenges and setup, operators held to TOTP, and only verified e-mail addresses as identities.
 */
const describeLocal = remoteTarget ? describe.skip : describe;

describeLocal('console sign-in through the user pool', () => {
  let gateway: TestGateway;
  let cognito: FakeCognito;
  let account: string;
  const saved: Record<string, string | undefined> = {};
  const password = 'Correct-Horse-9';

  const setEnv = (name: string, value: string | undefined) => {
    if (!(name in saved)) saved[name] = process.env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  const signIn = (body: object) => gateway.request('POST', '/console/api/session', { body });
  const member = async (email: string, role: string) => {
    expect((await gateway.admin('PUT', `/admin/v1/members/${email}`, { accountId: account, role })).status).toBe(201);
  };
  const statusWith = async (token: string, path: string) => (await gateway.request('GET', path, { key: token })).status;

  beforeAll(async () => {
    gateway = await startTestGateway();
    cognito = await startFakeCognito();
    account = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'pool' })).body.id;
    // The local runtime signs in locally; these tests turn it into a deployed stage's console.
    setEnv('GATEWAY_CONSOLE_AUTH', undefined);
    setEnv('GATEWAY_CONSOLE_USER_POOL_ID', cognito.userPoolId);
    setEnv('GATEWAY_CONSOLE_CLIENT_ID', cognito.clientId);
    setEnv('GATEWAY_CONSOLE_COGNITO_ENDPOINT', cognito.endpoint);
    setEnv('GATEWAY_CONSOLE_ADMIN_MFA', undefined);
  });

  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await cognito?.close();
    await gateway?.close();
  });

  beforeEach(() => {
    cognito.calls.length = 0;
    cognito.poolRequiresMfa = false;
  });

  it('asks a user with TOTP on for a code, refuses a wrong one, and signs in with the right one', async () => {
    await member('tina@pool.example', 'member');
    const user = cognito.addUser('tina@pool.example', password, { mfaEnabled: true, totpSecret: 'JBSWY3DPEHPK3PXP' });

    const asked = await signIn({ email: 'tina@pool.example', password });
    expect(asked.status).toBe(401);
    expect(asked.body.error).toMatchObject({ code: 'mfa_code_required', param: 'mfaCode' });

    const wrongCode = String((Number(totpCode(user.totpSecret!)) + 1) % 1_000_000).padStart(6, '0');
    const wrong = await signIn({ email: 'tina@pool.example', password, mfaCode: wrongCode });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.code).toBe('invalid_mfa_code');

    const signedIn = await signIn({ email: 'tina@pool.example', password, mfaCode: totpCode(user.totpSecret!) });
    expect(signedIn.status).toBe(201);
    expect(await statusWith(signedIn.body.token, '/console/api/me')).toBe(200);

    const answer = cognito.calls.filter((call) => call.operation === 'RespondToAuthChallenge').at(-1)!;
    expect(answer.body).toMatchObject({
      ChallengeName: 'SOFTWARE_TOKEN_MFA',
      ClientId: cognito.clientId,
      Session: expect.any(String),
      ChallengeResponses: { USERNAME: user.username, SOFTWARE_TOKEN_MFA_CODE: totpCode(user.totpSecret!) },
    });
  });

  it('leads an operator without TOTP through its setup before giving an operator session', async () => {
    await member('otto@pool.example', 'admin');
    const user = cognito.addUser('otto@pool.example', password);

    const setup = await signIn({ email: 'otto@pool.example', password });
    expect(setup.status).toBe(200);
    expect(setup.body.token).toBeUndefined();
    const { secret, otpauthUri } = setup.body.mfaSetup;
    expect(secret).toBe(user.pendingSecret);
    expect(otpauthUri).toBe(
      `otpauth://totp/model-gateway%3Aotto%40pool.example?secret=${secret}&issuer=model-gateway&algorithm=SHA1&digits=6&period=30`,
    );
    // A token the operator gets from the pool directly, without TOTP, is no operator session.
    const direct = cognito.idToken('otto@pool.example');
    expect(await statusWith(direct, '/admin/v1/accounts')).toBe(403);
    expect(await statusWith(direct, '/console/api/me')).toBe(403);

    const signedIn = await signIn({ email: 'otto@pool.example', password, mfaCode: totpCode(secret) });
    expect(signedIn.status).toBe(201);
    expect(user.mfaEnabled).toBe(true);
    expect(await statusWith(signedIn.body.token, '/admin/v1/accounts')).toBe(200);
    expect(await statusWith(signedIn.body.token, '/console/api/me')).toBe(200);
    expect(cognito.calls.map((call) => call.operation)).toEqual([
      'InitiateAuth',
      'AssociateSoftwareToken',
      'InitiateAuth',
      'VerifySoftwareToken',
      'SetUserMFAPreference',
    ]);

    // From now on the pool itself asks for a code.
    expect((await signIn({ email: 'otto@pool.example', password })).body.error.code).toBe('mfa_code_required');
  });

  it('lets an operator without TOTP in when the stack relaxes the rule', async () => {
    setEnv('GATEWAY_CONSOLE_ADMIN_MFA', 'optional');
    try {
      await member('olaf@pool.example', 'admin');
      cognito.addUser('olaf@pool.example', password);
      const signedIn = await signIn({ email: 'olaf@pool.example', password });
      expect(signedIn.status).toBe(201);
      expect(await statusWith(signedIn.body.token, '/admin/v1/accounts')).toBe(200);
    } finally {
      setEnv('GATEWAY_CONSOLE_ADMIN_MFA', undefined);
    }
  });

  it("answers the pool's MFA_SETUP challenge: the secret, then the first code with the setup session", async () => {
    cognito.poolRequiresMfa = true;
    await member('uma@pool.example', 'member');
    const user = cognito.addUser('uma@pool.example', password, { newPasswordRequired: true });

    const newPassword = await signIn({ email: 'uma@pool.example', password });
    expect(newPassword.body.error.code).toBe('new_password_required');
    const setup = await signIn({ email: 'uma@pool.example', password, newPassword: 'Another-Horse-7' });
    expect(setup.status).toBe(200);
    const { secret, session } = setup.body.mfaSetup;
    expect(session).toEqual(expect.any(String));

    const signedIn = await signIn({
      email: 'uma@pool.example',
      password: 'Another-Horse-7',
      mfaCode: totpCode(secret),
      mfaSession: session,
    });
    expect(signedIn.status).toBe(201);
    expect(user.mfaEnabled).toBe(true);
    const answer = cognito.calls.filter((call) => call.operation === 'RespondToAuthChallenge').at(-1)!;
    expect(answer.body).toMatchObject({ ChallengeName: 'MFA_SETUP', ChallengeResponses: { USERNAME: user.username } });
    // A forged or stale setup session is a refused code, never a 5xx.
    const stale = await signIn({ email: 'uma@pool.example', password, mfaCode: '123456', mfaSession: session });
    expect(stale.status).toBe(401);
  });

  it('lets a signed-in user turn TOTP on, with their password and then the first code', async () => {
    await member('vera@pool.example', 'member');
    const user = cognito.addUser('vera@pool.example', password);
    const token = (await signIn({ email: 'vera@pool.example', password })).body.token as string;
    const enable = (body: object) => gateway.request('POST', '/console/api/mfa', { key: token, body });

    expect((await enable({ password: 'not it' })).body.error.param).toBe('password');
    const setup = await enable({ password });
    expect(setup.status).toBe(200);
    const { secret } = setup.body.mfaSetup;
    expect((await enable({ password, mfaCode: totpCode(secret) })).body).toEqual({ mfa: 'enabled' });
    expect(user.mfaEnabled).toBe(true);
    expect((await signIn({ email: 'vera@pool.example', password })).body.error.code).toBe('mfa_code_required');
  });

  it.each([
    ['false', 'w1', false],
    ['the string "false"', 'w2', 'false'],
    ['absent', 'w3', undefined],
    ['1', 'w4', 1],
    ['"TRUE"', 'w5', 'TRUE'],
  ])('refuses a token whose email_verified is %s', async (_, name, claim) => {
    const email = `${name}@pool.example`;
    await member(email, 'member');
    expect(await statusWith(cognito.idToken(email, { email_verified: claim }), '/console/api/me')).toBe(401);
  });

  it.each([
    ['true', 'x1', true],
    ['the string "true"', 'x2', 'true'],
  ])('accepts a token whose email_verified is %s', async (_, name, claim) => {
    const email = `${name}@pool.example`;
    await member(email, 'member');
    expect(await statusWith(cognito.idToken(email, { email_verified: claim }), '/console/api/me')).toBe(200);
  });
});
