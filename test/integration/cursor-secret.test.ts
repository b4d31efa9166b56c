import { createHmac } from 'node:crypto';
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { CURSOR_SECRET_ARN_VARIABLE } from '../../functions/shared/secrets/cursor-secret.js';
import { resetSecretsManager, secretsManager } from '../../functions/shared/secrets/secrets-client.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../support/fake-secrets-manager.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * On a deployed stage page cursors are signed with the stage's own random key from Secrets Manager,
 * read once per process: a cursor signed with the key built into the code (which anyone can read) is
 * refused, and paging still works with the cursors the stage gives out.
 */
describe('the cursor signing key of a deployed stage', () => {
  let gateway: TestGateway;
  let secrets: FakeSecretsManager;
  const saved = {
    endpoint: process.env.SECRETS_MANAGER_ENDPOINT,
    arn: process.env[CURSOR_SECRET_ARN_VARIABLE],
  };

  beforeAll(async () => {
    secrets = await startFakeSecretsManager();
    process.env.SECRETS_MANAGER_ENDPOINT = secrets.endpoint;
    resetSecretsManager();
    const created = await (
      await secretsManager()
    ).send(new CreateSecretCommand({ Name: 'stage-cursor-key', SecretString: 'a-random-stage-key-from-the-stack' }));
    process.env[CURSOR_SECRET_ARN_VARIABLE] = created.ARN;
    gateway = await startTestGateway();
    for (const name of ['one', 'two', 'three']) await gateway.admin('POST', '/admin/v1/accounts', { name });
  });

  afterAll(async () => {
    await gateway.close();
    await secrets.close();
    for (const [name, value] of [
      ['SECRETS_MANAGER_ENDPOINT', saved.endpoint],
      [CURSOR_SECRET_ARN_VARIABLE, saved.arn],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetSecretsManager();
  });

  /** A cursor as the code's built-in key would sign it, for the accounts list after its first item. */
  const forgedWith = (key: string, after: string) => {
    const payload = Buffer.from(JSON.stringify({ v: 1, q: 'accounts', a: after })).toString('base64url');
    return `${payload}.${createHmac('sha256', key).update(payload).digest('base64url')}`;
  };

  it('refuses a cursor signed with the built-in key, and pages with its own', async () => {
    const first = await gateway.admin('GET', '/admin/v1/accounts?limit=1');
    const next = await gateway.admin(
      'GET',
      `/admin/v1/accounts?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`,
    );
    const forged = forgedWith(
      'model-gateway usage cursor v1',
      `${first.body.data[0].createdAt} ${first.body.data[0].id}`,
    );
    const refused = await gateway.admin('GET', `/admin/v1/accounts?limit=1&cursor=${encodeURIComponent(forged)}`);

    expect(next.status).toBe(200);
    expect(next.body.data[0].id).not.toBe(first.body.data[0].id);
    expect([refused.status, refused.body.error.param]).toEqual([400, 'cursor']);
  });

  it('reads the secret once, not on every page', async () => {
    const before = secrets.calls('GetSecretValue');
    for (let page = 0; page < 3; page += 1)
      expect((await gateway.admin('GET', '/admin/v1/audit?limit=1')).status).toBe(200);

    expect(before).toBeGreaterThan(0);
    expect(secrets.calls('GetSecretValue')).toBe(before);
  });
});
