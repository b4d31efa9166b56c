import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import { formatCost } from '../../console/src/format.js';
import { chromiumAvailability, launchChromium, type LaunchedChromium } from '../support/chromium.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * The console as a person uses it, in Debian's chromium: sign in, create a key, call the gateway
 * with it through the openai SDK, find that request on the usage page, revoke the key and get 401.
 * Every page is saved as a screenshot under test-results/console/.
 */
const availability = chromiumAvailability();
const screenshots = path.join(process.cwd(), 'test-results', 'console');
const MEMBER = { email: 'alice@example.com', password: 'correct horse battery' };
const ACCOUNT_ADMIN = { email: 'bob@example.com', password: 'another long password' };

if (availability.kind === 'skip') {
  console.warn(`Skipping the console browser tests: ${availability.reason}`);
}

const describeInBrowser = availability.kind === 'skip' ? describe.skip : describe;

describeInBrowser('the console in a browser', () => {
  let gateway: TestGateway;
  let chromium: LaunchedChromium;
  let page: Page;
  let accountId: string;
  let adminAccountId: string;
  let adminKeyId: string;
  /** Each page of an operator's console, and an element that shows it has drawn. */
  const everyPage: readonly (readonly [string, string])[] = [
    ['usage', '#usage-totals'],
    ['requests', '#request-log'],
    ['keys', '#keys'],
    ['models', '#models'],
    ['budgets', '#my-budgets'],
    ['account', 'main h1:text("Account")'],
    ['members', '#members'],
    ['accounts', '#accounts'],
    ['channels', '#channels'],
    ['prices', '#model-prices'],
    ['audit', '#audit'],
  ];
  const pageErrors: string[] = [];
  /** The messages of the confirmations the pages asked for; they are accepted unless `dismissDialogs`. */
  const dialogs: string[] = [];
  let dismissDialogs = false;

  const shoot = (name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
  /**
   * Waits until exactly `count` rows of `table` mention `text`. A view may render its table again
   * once its data arrives, so one look could fall between two renders.
   */
  const rowsMentioning = (table: string, text: string, count: number) =>
    page.waitForFunction(
      ([selector, needle, wanted]) => {
        // Runs in the page: the test's own compiler settings have no DOM types.
        const { document } = globalThis as unknown as {
          document: { querySelectorAll(selector: string): Iterable<{ textContent: string | null }> };
        };
        return (
          [...document.querySelectorAll(`${selector} tbody tr`)].filter((row) => row.textContent?.includes(needle))
            .length === wanted
        );
      },
      [table, text, count] as const,
    );
  const open = async (hash: string, ready: string) => {
    const address = `${gateway.url}/console/#/${hash}`;
    // The same address again changes no hash: load it afresh instead.
    if (page.url() === address) await page.reload();
    else await page.goto(address);
    await page.locator(ready).first().waitFor();
  };
  const signIn = async (fields: { email: string; password: string } | { key: string }) => {
    await page.goto(`${gateway.url}/console`);
    if ('key' in fields) {
      await page.locator('#admin-key-form').waitFor();
      await page.fill('#admin-key', fields.key);
      await page.click('#admin-key-form button[type=submit]');
    } else {
      await page.fill('#email', fields.email);
      await page.fill('#password', fields.password);
      await page.click('#sign-in-form button[type=submit]');
    }
    await page.locator('#signed-in-as').waitFor();
  };

  beforeAll(async () => {
    if (availability.kind === 'fail') throw new Error(`The browser tests cannot run: ${availability.reason}`);
    await mkdir(screenshots, { recursive: true });
    gateway = await startTestGateway();
    const account = await gateway.admin('POST', '/admin/v1/accounts', { name: 'team-a', quota: { limit: 5 } });
    accountId = account.body.id;
    const member = await gateway.admin('PUT', `/admin/v1/members/${MEMBER.email}`, {
      accountId,
      role: 'member',
      password: MEMBER.password,
    });
    expect(member.status).toBe(201);
    await gateway.admin('PUT', `/admin/v1/members/${ACCOUNT_ADMIN.email}`, {
      accountId,
      role: 'account-admin',
      password: ACCOUNT_ADMIN.password,
    });
    // A price, so that the request costs something on the usage page.
    await gateway.admin('PUT', '/admin/v1/models/demo-1', { pricing: { inputPerMTok: 3000, outputPerMTok: 15000 } });
    const operatorSession = await gateway.request('POST', '/console/api/session', { body: { key: gateway.adminKey } });
    adminAccountId = operatorSession.body.user.accountId;
    adminKeyId = (operatorSession.body.user.id as string).replace('admin-key:', '');
    chromium = await launchChromium();
    page = await chromium.context.newPage();
    // Anything the page's CSP blocks, or any script error, shows up here.
    page.on('console', (message) => {
      // Where it happened, so that a failure says which load it was.
      if (message.type() === 'error') pageErrors.push(`${message.text()} (${message.location().url})`);
    });
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void (dismissDialogs ? dialog.dismiss() : dialog.accept());
    });
  }, 60_000);

  afterAll(async () => {
    await chromium?.close();
    await gateway?.close();
  });

  it('refuses a wrong password on the sign-in page', async () => {
    await page.goto(`${gateway.url}/console/`);
    await page.fill('#email', MEMBER.email);
    await page.fill('#password', 'not the password');
    // The browser logs the refused sign-in's 401 as a failed load, in its own time: waited for below.
    const refusalLogged = page.waitForEvent('console', {
      predicate: (message) => message.type() === 'error' && message.text().includes('401'),
    });
    await page.click('#sign-in-form button[type=submit]');
    await expect(
      page
        .locator('#sign-in-error')
        .filter({ hasText: /not right/ })
        .waitFor(),
    ).resolves.toBeUndefined();
    await shoot('sign-in');
    // That failed load is expected here, and only here.
    await refusalLogged;
    pageErrors.splice(0, pageErrors.length);
  });

  it('creates a key that works with the openai SDK, shows its request under usage, and revokes it', async () => {
    await signIn(MEMBER);
    await open('keys', '#create-key');
    await page.fill('#key-name', 'laptop');
    await page.check('input[name=models][value=demo-1]');
    await page.click('#create-key button[type=submit]');
    // Either the key is shown, or the form says why not (and the test fails with that).
    await Promise.race([
      page.locator('#new-key').waitFor(),
      page
        .locator('#create-key .error:not(:empty)')
        .waitFor()
        .then(async () => {
          throw new Error(`key creation failed: ${await page.locator('#create-key .error').textContent()}`);
        }),
    ]);
    const key = (await page.locator('#new-key').textContent())!;
    expect(key).toMatch(/^sk-[0-9A-Za-z]{48}$/);
    await rowsMentioning('#keys', 'laptop', 1);
    await shoot('keys-created');

    const client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 });
    const { data: completion, response } = await client.chat.completions
      .create({
        model: 'demo-1',
        // The quota reserves the most a request could cost: a bounded answer keeps it within $5 at these prices.
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hello from the console test' }],
      })
      .withResponse();
    expect(completion.choices[0]!.message.content).toEqual(expect.any(String));
    const requestId = response.headers.get('x-request-id')!;

    // The usage record is written once the response has ended: reload the request log until it shows it.
    const requestRow = page.locator(`tr[data-request-id="${requestId}"]`);
    for (let loads = 0; (await requestRow.count()) === 0; loads += 1) {
      if (loads === 50) throw new Error(`request ${requestId} never appeared in the request log`);
      await page.goto(`${gateway.url}/console/#/keys`);
      await open('requests', '#request-log');
    }
    await open('usage', '#usage-totals');
    await expect(page.locator('#total-requests').textContent()).resolves.toBe('1');
    await expect(page.locator('#quota').textContent()).resolves.toMatch(/of \$5\.00/);
    // The money on the page is the usage records' sum, as the admin usage API has it.
    const admin = await gateway.admin('GET', `/admin/v1/usage?accountId=${accountId}`);
    await expect(page.locator('#total-cost').textContent()).resolves.toBe(formatCost(admin.body.totals.cost));
    await shoot('usage');

    await open('models', '#snippets');
    await expect(page.locator('#base-url').textContent()).resolves.toBe(gateway.url);
    await expect(page.locator('[data-client=openai] code').textContent()).resolves.toContain(`${gateway.url}/v1`);
    await shoot('models');

    await open('keys', '#keys');
    await rowsMentioning('#keys', 'laptop', 1);
    await expect(page.locator('#keys tbody tr:has-text("laptop")').textContent()).resolves.toMatch(/just now|min ago/);
    await page.click('#keys tbody tr:has-text("laptop") button.danger');
    await page.locator('#keys tbody tr:has-text("laptop") .status.revoked').waitFor();
    await shoot('keys-revoked');
    await expect(
      client.chat.completions.create({ model: 'demo-1', messages: [{ role: 'user', content: 'again' }] }),
    ).rejects.toMatchObject({
      status: 401,
    });
  }, 60_000);

  it("shows an account admin every member's keys and usage", async () => {
    await page.click('header button.link');
    await signIn(ACCOUNT_ADMIN);
    await open('keys', '#keys');
    await rowsMentioning('#keys', MEMBER.email, 1);
    await open('usage', '#usage-by-key');
    await rowsMentioning('#usage-by-key', MEMBER.email, 1);
    await shoot('usage-account-admin');
  }, 60_000);

  it("lets an operator signed in with the admin key see and manage another account's keys and usage", async () => {
    await page.click('header button.link');
    await signIn({ key: gateway.adminKey });
    // Every account at once: team-a's spending by name.
    await open('usage', '#usage-totals');
    await page.selectOption('#account-picker', '');
    await rowsMentioning('#usage-by-account', 'team-a', 1);
    await shoot('operator-usage-every-account');

    await open('keys', '#keys');
    await page.selectOption('#account-picker', accountId);
    await rowsMentioning('#keys', MEMBER.email, 1);
    await page.fill('#key-name', 'made by the operator');
    await page.click('#create-key button[type=submit]');
    await page.locator('#new-key').waitFor();
    await rowsMentioning('#keys', 'made by the operator', 1);
    await page.click('#keys tbody tr:has-text("made by the operator") button:has-text("Edit")');
    await page.fill('#key-edit input[name=name]', 'renamed by the operator');
    await page.click('#key-edit button[type=submit]');
    await rowsMentioning('#keys', 'renamed by the operator', 1);
    await shoot('operator-keys-of-team-a');

    await open('usage', '#usage-totals');
    await expect(page.locator('#total-requests').textContent()).resolves.toBe('1');
    await rowsMentioning('#usage-by-key', MEMBER.email, 1);
    await open('members', '#members');
    await rowsMentioning('#members', MEMBER.email, 1);
  }, 60_000);

  it('warns before the operator revokes the key of their own session', async () => {
    await open('keys', '#keys');
    await page.selectOption('#account-picker', adminAccountId);
    await page.locator(`#keys tbody tr[data-key-id="${adminKeyId}"]`).waitFor();
    dismissDialogs = true;
    dialogs.length = 0;
    await page.click(`#keys tbody tr[data-key-id="${adminKeyId}"] button.danger`);
    dismissDialogs = false;
    expect(dialogs).toEqual([expect.stringContaining('the key you signed in with')]);
    const stillThere = await gateway.admin('GET', `/admin/v1/keys/${adminKeyId}`);
    expect(stillThere.body.status).toBe('active');
  }, 60_000);

  it('edits, disables and deletes through the operator pages', async () => {
    await open('accounts', '#accounts');
    await rowsMentioning('#accounts', 'team-a', 1);
    const doomed = (await gateway.admin('POST', '/admin/v1/accounts', { name: 'doomed' })).body.id as string;
    await open('accounts', `#accounts tr[data-account-id="${doomed}"]`);
    await page.click(`#accounts tr[data-account-id="${doomed}"] button:has-text("Disable")`);
    await page.locator(`#accounts tr[data-account-id="${doomed}"] .status.disabled`).waitFor();
    await shoot('operator-accounts');

    await open('channels', '#channel-form');
    await page.fill('#channel-id', 'upstream');
    await page.selectOption('#channel-type', 'openai');
    await page.fill('#channel-base-url', 'http://127.0.0.1:9/v1');
    await page.fill('#channel-api-key', 'sk-upstream-secret-never-shown');
    await page.fill('#channel-models', 'gpt-test');
    await page.click('#channel-form button[type=submit]');
    await page.locator('#channels tbody tr', { hasText: 'upstream' }).waitFor();
    expect(await page.content()).not.toContain('sk-upstream-secret-never-shown');
    // "Test" reaches nothing at port 9, and says so in the row.
    await page.click('#channels tr[data-channel-id="upstream"] button:has-text("Test")');
    await page.locator('[data-test-result="upstream"]', { hasText: 'Failed' }).waitFor();
    await page.click('#channels tr[data-channel-id="upstream"] button:has-text("Disable")');
    await page.locator('#channels tr[data-channel-id="upstream"] .status.disabled').waitFor();
    await shoot('operator-channels');

    await open('prices', '#put-model');
    await rowsMentioning('#model-prices', 'gpt-test', 1);
    await page.fill('#model-id', 'gpt-test');
    await page.fill('#model-input-price', '1.5');
    await page.fill('#model-input-price', '1.5');
    await page.fill('#model-output-price', '6');
    await page.click('#put-model button[type=submit]');
    await page.locator('#model-prices tbody tr', { hasText: '$1.5 in' }).waitFor();
    await expect(page.locator('#model-prices tr[data-model-id="gpt-test"]').textContent()).resolves.toContain(
      'set here',
    );
    await shoot('operator-prices');

    await open('channels', '#channels');
    await page.click('#channels tr[data-channel-id="upstream"] button:has-text("Delete")');
    await page.locator('#channels tr[data-channel-id="upstream"]').waitFor({ state: 'detached' });

    // Each of those changes is on the audit trail, by the operator's key.
    await open('audit', '#audit');
    await rowsMentioning('#audit', 'channel.delete', 1);
    await shoot('operator-audit');
  }, 60_000);

  it('draws every page at 1280 and 390 px wide without overflowing sideways', async () => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
      for (const [hash, ready] of everyPage) {
        await open(hash, ready);
        // The charts draw at their box's width in the next frame.
        await page.evaluate(() => {
          const { requestAnimationFrame: nextFrame } = globalThis as unknown as {
            requestAnimationFrame: (callback: () => void) => void;
          };
          return new Promise<void>((resolve) => nextFrame(() => nextFrame(resolve)));
        });
        const overflow = await page.evaluate(() => {
          const { document, innerWidth } = globalThis as unknown as {
            document: { documentElement: { scrollWidth: number } };
            innerWidth: number;
          };
          return document.documentElement.scrollWidth - innerWidth;
        });
        expect({ page: hash, width, overflow }).toEqual({ page: hash, width, overflow: 0 });
        await shoot(`${hash}-${width}`);
      }
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }, 120_000);

  it('forgets the session in the tab before the server ends it, so a page loaded meanwhile is signed out', async () => {
    if ((await page.locator('header button.link').count()) > 0) await page.click('header button.link');
    await signIn(MEMBER);
    const token = await page.evaluate(() =>
      (globalThis as unknown as { sessionStorage: Storage }).sessionStorage.getItem('model-gateway.session'),
    );
    expect(token).toBeTruthy();
    // The server's end of the session is held back until the next page has loaded, then sent on.
    let releaseEnd: () => void = () => undefined;
    const endHeld = new Promise<void>((resolve) => (releaseEnd = resolve));
    let endAsked: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (endAsked = resolve));
    const ended = new Promise<number>((resolve) => {
      void page.route('**/console/api/session', async (route) => {
        if (route.request().method() !== 'DELETE') return route.continue();
        endAsked();
        await endHeld;
        const response = await route.fetch();
        resolve(response.status());
        await route.fulfill({ response }).catch(() => undefined);
      });
    });
    await page.click('header button.link');
    await asked;
    await page.goto(`${gateway.url}/console`);
    await page.locator('#sign-in-form').waitFor();
    expect(await page.locator('#signed-in-as').count()).toBe(0);
    releaseEnd();
    expect(await ended).toBeLessThan(300);
    await page.unroute('**/console/api/session');
    const stale = await fetch(`${gateway.url}/console/api/me`, { headers: { authorization: `Bearer ${token}` } });
    expect(stale.status).toBe(401);
  }, 60_000);

  it("shows a banner over every page once a budget covering the person passes its first alert, and the budget's numbers", async () => {
    // The account's spending so far (its total budget's), then a budget it has passed half of.
    const spent = (await gateway.admin('GET', `/admin/v1/accounts/${accountId}`)).body.quota.used as number;
    expect(spent).toBeGreaterThan(0);
    await gateway.admin('PATCH', `/admin/v1/accounts/${accountId}`, {
      budget: { limitUsd: spent * 1.5, period: 'total', alertAt: [0.5, 1] },
    });
    if ((await page.locator('header button.link').count()) > 0) await page.click('header button.link');
    await signIn(MEMBER);
    const banner = page.locator('#budget-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toContain("Account 'team-a': its total budget is 66% spent");
    await open('budgets', '#my-budgets');
    await rowsMentioning('#my-budgets', formatCost(spent * 1.5), 1);
    await page.locator('#budget-banner').waitFor();
    await shoot('budget-banner');

    // Below its first threshold, no banner.
    await gateway.admin('PATCH', `/admin/v1/accounts/${accountId}`, {
      budget: { limitUsd: spent * 10, period: 'total', alertAt: [0.5, 1] },
    });
    await open('budgets', '#my-budgets');
    await rowsMentioning('#my-budgets', formatCost(spent * 10), 1);
    expect(await page.locator('#budget-banner').count()).toBe(0);
  }, 60_000);

  it('loads every page without a script error or a blocked resource', () => {
    expect(pageErrors).toEqual([]);
  });
});
