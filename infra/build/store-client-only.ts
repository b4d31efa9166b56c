/**
 * A function that only makes the gateway's store client (the DynamoDB client and the document client
 * over it), bundled like the others: `npm run build` and `npm run bench` time its cold start beside the
 * hello-world's, as the share of every function's cold start that the store client takes, since each
 * function reads the store from its first request.
 */
import { store } from '../../functions/shared/store/client.js';

const client = store();

export const handler = async () => ({ statusCode: 200, body: typeof client.send });
