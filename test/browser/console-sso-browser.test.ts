import type { Page } from 'playwright-core';
import { chromiumAvailability, launchChromium, type LaunchedChromium } from '../support/chromium.js';
import { pkceChallenge, startFakeCognito, type FakeCognito } from '../support/fake-cognito.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * The console's single sign-on in Debian's chromium: the button takes the browser to the pool's
 * authorize endpoint (the fake Cognito, standing in for the hosted sign-in and the identity
 * provider) and back with a code, which opens the session; a return whose state this tab did not
 * send is refused before any code is sent.
 */
const availability = chromiumAvailability();
const describeInBrowser = availability.kind === 'skip' ? describe.skip : describe;

describeInBrowser('single sign-on in the console, in a browser', () => {
  let gateway: TestGateway;
  let cognito: FakeCognito;
  let chromium: LaunchedChromium;
  let page: Page;
  const saved: Record<string, string | undefined> = {};
  const setEnv = (name: string, value: string | undefined) => {
    if (!(name in saved)) saved[name] = process.env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };

  beforeAll(async () => {
    if (availability.kind === 'fail') throw new Error(`The browser tests cannot run: ${availability.reason}`);
    gateway = await startTestGateway();
    cognito = await startFakeCognito();
    const account = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'federated' })).body.id;
    await gateway.admin('PUT', '/admin/v1/members/sso-user@federated.example', { accountId: account, role: 'member' });
    setEnv('GATEWAY_CONSOLE_AUTH', undefined);
    setEnv('GATEWAY_CONSOLE_USER_POOL_ID', cognito.userPoolId);
    setEnv('GATEWAY_CONSOLE_CLIENT_ID', cognito.clientId);
    setEnv('GATEWAY_CONSOLE_COGNITO_ENDPOINT', cognito.endpoint);
    setEnv('GATEWAY_CONSOLE_SSO_PROVIDER', 'Corp-IdP');
    setEnv('GATEWAY_CONSOLE_SSO_CLIENT_ID', cognito.ssoClientId);
    setEnv('GATEWAY_CONSOLE_SSO_DOMAIN', cognito.endpoint);
    setEnv('GATEWAY_CONSOLE_SSO_REDIRECT_URI', `${gateway.url}/console/`);
    chromium = await launchChromium();
    page = await chromium.context.newPage();
  }, 60_000);

  afterAll(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await chromium?.close();
    await cognito?.close();
    await gateway?.close();
  });

  it('signs a member in through the identity provider, with state and a PKCE S256 challenge', async () => {
    cognito.ssoUser = 'sso-user@federated.example';
    await page.goto(`${gateway.url}/console/`);
    await page.click('#sso-sign-in:text("Sign in with Corp-IdP")');
    await page.locator('#signed-in-as').waitFor();

    const authorize = cognito.authorizeRequests.at(-1)!;
    expect(authorize).toEqual({
      response_type: 'code',
      client_id: cognito.ssoClientId,
      redirect_uri: `${gateway.url}/console/`,
      identity_provider: 'Corp-IdP',
      scope: 'openid email',
      state: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });
    const redeemed = cognito.tokenRequests.at(-1)!;
    expect(pkceChallenge(redeemed.code_verifier!)).toBe(authorize.code_challenge);
    // The code is taken off the address, so a reload does not send it again.
    expect(new URL(page.url()).search).toBe('');
  });

  it('refuses a return whose state this tab did not send, and sends no code', async () => {
    // Signed out, and no sign-in pending in this tab.
    await page.goto(`${gateway.url}/console/`);
    await page.evaluate(() => (globalThis as unknown as { sessionStorage: { clear(): void } }).sessionStorage.clear());
    const redeemedBefore = cognito.tokenRequests.length;
    const code = cognito.authorizationCode('sso-user@federated.example', {
      redirectUri: `${gateway.url}/console/`,
      codeChallenge: 'x'.repeat(43),
    });
    await page.goto(`${gateway.url}/console/?code=${code}&state=forged`);
    await page
      .locator('#sign-in-error')
      .filter({ hasText: /not started from this tab/ })
      .waitFor();
    expect(cognito.tokenRequests.length).toBe(redeemedBefore);
  });
});
