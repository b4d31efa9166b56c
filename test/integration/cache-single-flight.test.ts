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
