import { ensureTables, startEmbeddedStore, type EmbeddedStore } from '../../infra/local/embedded-store.js';

/**
 * For suites that drive store-backed modules directly: an in-memory store with the gateway's tables,
 * started before the suite and pointed to by DYNAMODB_ENDPOINT, which is put back afterwards.
 */
export const useInMemoryStore = (): void => {
  let store: EmbeddedStore | undefined;
  const savedEndpoint = process.env.DYNAMODB_ENDPOINT;

  beforeAll(async () => {
    store = await startEmbeddedStore('memory', 'in-process');
    await ensureTables(store.endpoint);
    process.env.DYNAMODB_ENDPOINT = store.endpoint;
  });

  afterAll(async () => {
    if (savedEndpoint === undefined) delete process.env.DYNAMODB_ENDPOINT;
    else process.env.DYNAMODB_ENDPOINT = savedEndpoint;
    await store?.close();
  });
};
