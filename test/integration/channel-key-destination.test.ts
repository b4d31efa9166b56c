import fc from 'fast-check';
import OpenAI from 'openai';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * Upstream keys are write-only, and so is where they are sent: a channel write that moves a channel
 * holding a key to another base URL or type, without giving the key again, is refused (400, `param:
 * "apiKey"`) through every write path, so that a holder of an admin key cannot have the stored key
 * sent to a server of their choosing. The same destination keeps the stored key, as before.
 */
describe('a channel write that changes where the stored key goes', () => {
  let gateway: TestGateway;
  let organisation: FakeUpstream;
  let attacker: FakeUpstream;
  const storedKey = 'sk-upstream-organisation-0000000001';

  beforeAll(async () => {
    [gateway, organisation, attacker] = await Promise.all([
      startTestGateway(),
      startFakeUpstream(),
      startFakeUpstream(),
    ]);
  });

  afterAll(() => Promise.all([gateway.close(), organisation.close(), attacker.close()]));

  const channel = (id: string, fields: Record<string, unknown> = {}) => ({
    type: 'openai',
    baseUrl: organisation.baseUrl,
    models: [`${id}-model`],
    ...fields,
  });

  const chatThrough = async (model: string) => {
    const { key } = await gateway.createAccountWithKey();
    return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 }).chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'hi' }],
    });
  };

  const keysSeenBy = async (upstream: FakeUpstream) =>
    (await upstream.receivedRequests()).map((request) => request.headers.authorization);

  it('refuses a new baseUrl without the key, and sends the key only to the old one', async () => {
    await gateway.admin('PUT', '/admin/v1/channels/moved', { ...channel('moved'), apiKey: storedKey });

    const refused = await gateway.admin(
      'PUT',
      '/admin/v1/channels/moved',
      channel('moved', { baseUrl: attacker.baseUrl }),
    );

    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ type: 'invalid_request_error', param: 'apiKey' });
    expect(refused.body.error.message).toMatch(/apiKey/);
    expect((await gateway.admin('GET', '/admin/v1/channels/moved')).body.baseUrl).toBe(organisation.baseUrl);
    await chatThrough('moved-model');
    expect(await keysSeenBy(attacker)).toEqual([]);
    expect(await keysSeenBy(organisation)).toContain(`Bearer ${storedKey}`);
  });

  it('refuses a new type without the key', async () => {
    await gateway.admin('PUT', '/admin/v1/channels/retyped', { ...channel('retyped'), apiKey: storedKey });

    const refused = await gateway.admin('PUT', '/admin/v1/channels/retyped', channel('retyped', { type: 'anthropic' }));

    expect([refused.status, refused.body.error.param]).toEqual([400, 'apiKey']);
    expect((await gateway.admin('GET', '/admin/v1/channels/retyped')).body.type).toBe('openai');
  });

  it('keeps the stored key when baseUrl and type stay, and takes a new destination with the key given again', async () => {
    await gateway.admin('PUT', '/admin/v1/channels/kept', { ...channel('kept'), apiKey: storedKey });

    const kept = await gateway.admin('PUT', '/admin/v1/channels/kept', channel('kept', { priority: 5 }));
    const movedWithKey = await gateway.admin('PUT', '/admin/v1/channels/kept', {
      ...channel('kept', { baseUrl: `${organisation.origin}/v1/` }),
      apiKey: storedKey,
    });
    const keyRemoved = await gateway.admin('PUT', '/admin/v1/channels/kept', {
      ...channel('kept', { baseUrl: attacker.baseUrl }),
      apiKey: null,
    });

    expect([kept.status, kept.body.hasApiKey, kept.body.priority]).toEqual([200, true, 5]);
    expect([movedWithKey.status, movedWithKey.body.hasApiKey]).toEqual([200, true]);
    expect([keyRemoved.status, keyRemoved.body.hasApiKey]).toEqual([200, false]);
  });

  it('refuses the same through apply, and applies nothing of that document', async () => {
    await gateway.admin('PUT', '/admin/v1/channels/applied', { ...channel('applied'), apiKey: storedKey });

    const refused = await gateway.admin('POST', '/admin/v1/apply', {
      channels: [
        { id: 'applied-sibling', ...channel('applied-sibling'), apiKey: 'sk-upstream-sibling-000000000001' },
        { id: 'applied', ...channel('applied', { baseUrl: attacker.baseUrl }) },
      ],
    });
    const same = await gateway.admin('POST', '/admin/v1/apply', {
      channels: [{ id: 'applied', ...channel('applied') }],
    });

    expect([refused.status, refused.body.error.param]).toEqual([400, 'apiKey']);
    expect((await gateway.admin('GET', '/admin/v1/channels/applied-sibling')).status).toBe(404);
    expect((await gateway.admin('GET', '/admin/v1/channels/applied')).body).toMatchObject({
      baseUrl: organisation.baseUrl,
      hasApiKey: true,
    });
    expect(same.status).toBe(200);
  });

  it('decides every combination of type, baseUrl and key the same way', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('absent', 'given', 'null'),
        async (changeType, changeBaseUrl, key) => {
          await gateway.admin('PUT', '/admin/v1/channels/combination', {
            ...channel('combination'),
            apiKey: storedKey,
          });
          const body = {
            ...channel('combination'),
            ...(changeType ? { type: 'anthropic' } : {}),
            ...(changeBaseUrl ? { baseUrl: attacker.baseUrl } : {}),
            ...(key === 'given' ? { apiKey: storedKey } : key === 'null' ? { apiKey: null } : {}),
          };
          const answer = await gateway.admin('PUT', '/admin/v1/channels/combination', body);
          const refused = key === 'absent' && (changeType || changeBaseUrl);
          expect(answer.status).toBe(refused ? 400 : 200);
          if (refused) expect(answer.body.error.param).toBe('apiKey');
        },
      ),
      { numRuns: 24 },
    );
  });
});
