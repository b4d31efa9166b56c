/**
 * A function that only makes the gateway's store connection (endpoint, signer and HTTP handler),
 * bundled like the others: `npm run build` and `npm run bench` time its cold start beside the
 * hello-world's, as the share of every function's cold start that the store client takes, since each
 * function reads the store from its first request.
 */
import { storeConnection } from '../../functions/shared/store/connection.js';

const connection = await storeConnection();

export const handler = async () => ({ statusCode: 200, body: connection.kind });
