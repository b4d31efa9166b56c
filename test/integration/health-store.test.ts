import { generateApiKey } from '../../functions/shared/auth/api-key.js';
import { listenDynalite } from '../../infra/local/dynalite-server.js';
import { startLocalGateway } from '../../infra/local/local-gateway.js';

describe('GET /health', () => {
  test('answers 503 in the JSON envelope while an external store cannot be reached, and 200 with it', async () => {
    const external = await listenDynalite('memory');
    const gateway = await startLocalGateway({
      port: 0,
      dataDir: 'memory',
      dynamodbEndpoint: `http://127.0.0.1:${external.port}`,
      adminKey: generateApiKey().key,
    });
    try {
      expect((await fetch(`${gateway.url}/health`)).status).toBe(200);

      await external.close();

      const health = await fetch(`${gateway.url}/health`);
      expect(health.status).toBe(503);
      expect(health.headers.get('x-request-id')).toBeTruthy();
      expect(await health.json()).toEqual({
        error: {
          message: expect.stringContaining('store'),
          type: 'server_error',
          param: null,
          code: 'store_unavailable',
        },
      });
    } finally {
      await gateway.close();
    }
  });
});
