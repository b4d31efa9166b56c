import { jest } from '@jest/globals';
import { resolvePrincipal } from '../../functions/shared/auth/principal.js';
import { invalidateCaches } from '../../functions/shared/store/ttl-cache.js';
import { recordWrites } from '../support/store-recorder.js';
import { startTestGateway, type TestGateway } from '../support/test-gateway.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway();
});

afterAll(async () => {
  await gateway?.close();
});

describe('a cold cache', () => {
  test('100 concurrent requests with one key make one read of the key and one of its account', async () => {
    const { key, keyId } = await gateway.createAccountWithKey();
    invalidateCaches();
    const recorder = recordWrites();
    try {
      const principals = await Promise.all(Array.from({ length: 100 }, () => resolvePrincipal(key)));
      expect(new Set(principals.map((principal) => principal.keyId))).toEqual(new Set([keyId]));
      expect(Object.fromEntries(recorder.calls)).toEqual({ 'GetItemCommand keys': 1, 'GetItemCommand accounts': 1 });
    } finally {
      recorder.stop();
    }
  });
});

describe("a warm cache near the end of its entries' life", () => {
  afterEach(() => jest.restoreAllMocks());

  test('requests are answered from it while the key, its account and the catalog are read again once', async () => {
    const { key } = await gateway.createAccountWithKey();
    invalidateCaches();
    expect((await gateway.request('GET', '/v1/models', { key })).status).toBe(200);
    // Past the reload point of the longest-lived entries (75 % of 30 s) and before the shortest
    // expires (80 % of 30 s): every entry is still valid, each due for a reload.
    const later = Date.now() + 23_000;
    jest.spyOn(Date, 'now').mockReturnValue(later);
    const recorder = recordWrites();
    try {
      const answers = await Promise.all(Array.from({ length: 5 }, () => gateway.request('GET', '/v1/models', { key })));
      expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
      // A buffered function's invocation ends only once its background reloads have: all are counted.
      expect(Object.fromEntries(recorder.calls)).toEqual({
        'GetItemCommand keys': 1,
        'GetItemCommand accounts': 1,
        'ScanCommand channels': 1,
        'ScanCommand models': 1,
      });
    } finally {
      recorder.stop();
    }
  });
});

describe('a key that expires while its principal is cached', () => {
  afterEach(() => jest.restoreAllMocks());

  test('is refused from the cache at its expiry, as a loaded one is', async () => {
    const { key, keyId } = await gateway.createAccountWithKey();
    await gateway.admin('PATCH', `/admin/v1/keys/${keyId}`, { expiresAt: new Date(Date.now() + 5_000).toISOString() });
    expect((await gateway.request('GET', '/v1/models', { key })).status).toBe(200);
    // Past the key's expiry, well before the cache entry's own (at least 80 % of 30 s).
    const later = Date.now() + 10_000;
    jest.spyOn(Date, 'now').mockReturnValue(later);
    const recorder = recordWrites();
    try {
      const answer = await gateway.request('GET', '/v1/models', { key });
      expect(answer.status).toBe(401);
      expect(answer.body.error.code).toBe('invalid_api_key');
      // Refused from the cache: the key was not read again.
      expect(recorder.calls.get('GetItemCommand keys')).toBeUndefined();
    } finally {
      recorder.stop();
    }
  });
});
