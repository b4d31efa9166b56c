import OpenAI from 'openai';
import { closeIdleConnections } from '../../functions/shared/http/client/connection-pool.js';
import {
  ALLOWED_HOSTS_VARIABLE,
  PRIVATE_ADDRESSES_VARIABLE,
} from '../../functions/shared/security/upstream-host-policy.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

/**
 * The upstream host policy end to end: on a stage that refuses private addresses, a channel cannot be
 * pointed at loopback, link-local, private or metadata hosts (400, `param: "baseUrl"`), and a channel
 * that already points at one, or whose name now resolves to one, is not connected to.
 */
describe('the upstream host policy', () => {
  let gateway: TestGateway;
  let upstream: FakeUpstream;
  const saved = { allowed: process.env[ALLOWED_HOSTS_VARIABLE], private: process.env[PRIVATE_ADDRESSES_VARIABLE] };

  const setPolicy = (privateAddresses: string | undefined, allowed?: string) => {
    if (privateAddresses === undefined) delete process.env[PRIVATE_ADDRESSES_VARIABLE];
    else process.env[PRIVATE_ADDRESSES_VARIABLE] = privateAddresses;
    if (allowed === undefined) delete process.env[ALLOWED_HOSTS_VARIABLE];
    else process.env[ALLOWED_HOSTS_VARIABLE] = allowed;
  };

  beforeAll(async () => {
    [gateway, upstream] = await Promise.all([startTestGateway(), startFakeUpstream()]);
  });

  afterEach(() => setPolicy(saved.private, saved.allowed));

  afterAll(() => Promise.all([gateway.close(), upstream.close()]));

  const putChannel = (id: string, baseUrl: string) =>
    gateway.admin('PUT', `/admin/v1/channels/${id}`, {
      type: 'openai',
      baseUrl,
      apiKey: 'sk-upstream-policy-000000000000001',
      models: [`${id}-model`],
    });

  const chat = async (model: string) => {
    const { key } = await gateway.createAccountWithKey();
    return new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: key, maxRetries: 0 }).chat.completions
      .create({ model, messages: [{ role: 'user', content: 'hi' }] })
      .then(
        () => 'answered',
        (error: { status?: number }) => error.status,
      );
  };

  it.each([
    'http://127.0.0.1:11434/v1',
    'http://localhost:11434/v1',
    'http://169.254.169.254/latest',
    'http://[::ffff:169.254.169.254]/v1',
    'http://[::ffff:a9fe:a9fe]/v1',
    'http://[fd00:ec2::254]/v1',
    'http://[::1]:8080/v1',
    'http://0x7f000001/v1',
    'http://2130706433/v1',
    'http://10.0.0.8/v1',
    'http://172.20.1.1/v1',
    'http://192.168.1.10/v1',
    'http://metadata.google.internal/computeMetadata/v1',
  ])('refuses a channel written to %s', async (baseUrl) => {
    setPolicy('deny');

    const answer = await putChannel('private', baseUrl);

    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ type: 'invalid_request_error', param: 'baseUrl' });
    expect((await gateway.admin('GET', '/admin/v1/channels/private')).status).toBe(404);
  });

  it('refuses the same through apply', async () => {
    setPolicy('deny');

    const answer = await gateway.admin('POST', '/admin/v1/apply', {
      channels: [{ id: 'applied-private', type: 'openai', baseUrl: upstream.baseUrl, models: ['applied-private'] }],
    });

    expect([answer.status, answer.body.error.param]).toEqual([400, 'baseUrl']);
  });

  it('does not connect to a channel already pointing at a private address, by address or by name', async () => {
    setPolicy(undefined);
    expect((await putChannel('by-address', upstream.baseUrl)).status).toBe(200);
    expect((await putChannel('by-name', upstream.baseUrl.replace('127.0.0.1', 'localhost'))).status).toBe(200);
    expect(await chat('by-address-model')).toBe('answered');
    const before = (await upstream.receivedRequests()).length;

    setPolicy('deny');
    // A deployed function's setting is fixed from its start: it has no connection made before it.
    closeIdleConnections();
    const byAddress = await chat('by-address-model');
    const byName = await chat('by-name-model');

    expect(byAddress).not.toBe('answered');
    expect(byName).not.toBe('answered');
    expect((await upstream.receivedRequests()).length).toBe(before);
  });

  it('calls a private upstream the allow-list names', async () => {
    setPolicy('deny', '127.0.0.1');

    expect((await putChannel('listed', upstream.baseUrl)).status).toBe(200);
    expect(await chat('listed-model')).toBe('answered');
    setPolicy('deny', 'api.openai.com');
    expect((await putChannel('unlisted', upstream.baseUrl)).body.error.param).toBe('baseUrl');
  });

  it('leaves loopback upstreams alone without a setting, as the local runtime runs', async () => {
    setPolicy(undefined);

    expect((await putChannel('local', upstream.baseUrl)).status).toBe(200);
    expect(await chat('local-model')).toBe('answered');
  });
});
