import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  ({ key } = await gateway.createAccountWithKey());
});

afterAll(async () => {
  await gateway?.close();
});

const modelIds = async (): Promise<string[]> => {
  const listed = await gateway.request('GET', '/v1/models', { key });
  expect(listed.status).toBe(200);
  return listed.body.data.map((model: { id: string }) => model.id);
};

const askDemo = () =>
  gateway.request('POST', '/v1/chat/completions', {
    key,
    body: { model: 'demo-1', messages: [{ role: 'user', content: 'hi' }] },
  });

describe('the built-in demo channel', () => {
  test('serves demo-1 only while no other channel exists, and again once the others are gone', async () => {
    expect(await modelIds()).toEqual(['demo-1']);
    expect((await askDemo()).status).toBe(200);

    const put = await gateway.admin('PUT', '/admin/v1/channels/real', {
      type: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      models: ['gpt-real'],
    });
    expect(put.status).toBe(200);
    expect(await modelIds()).toEqual(['gpt-real']);
    const refused = await askDemo();
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('model_not_found');
    // Still stored and listed for the operator, who may delete it.
    const channels = await gateway.admin('GET', '/admin/v1/channels');
    expect(channels.body.data.map((channel: { id: string }) => channel.id)).toContain('demo');

    expect((await gateway.admin('DELETE', '/admin/v1/channels/real')).status).toBe(200);
    expect(await modelIds()).toEqual(['demo-1']);
    expect((await askDemo()).status).toBe(200);
  });

  test('a disabled channel still counts as configured, and a demo-type channel under its own id keeps serving', async () => {
    await gateway.admin('PUT', '/admin/v1/channels/paused', {
      type: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      models: ['gpt-paused'],
      enabled: false,
    });
    expect((await askDemo()).status).toBe(404);

    await gateway.admin('PUT', '/admin/v1/channels/showcase', { type: 'demo', models: ['demo-1'] });
    expect(await modelIds()).toEqual(['demo-1']);
    expect((await askDemo()).status).toBe(200);

    await gateway.admin('DELETE', '/admin/v1/channels/paused');
    await gateway.admin('DELETE', '/admin/v1/channels/showcase');
  });
});
