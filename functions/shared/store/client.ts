import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { marshallOptions } from '@aws-sdk/util-dynamodb';
import { withCallObserver } from '../aws/aws-call-observer.js';
import { SigningSha256 } from '../aws/signing-sha256.js';

let documentClient: DynamoDBDocumentClient | undefined;

/**
 * How plain values become DynamoDB attribute values, for the document client and for what
 * `attribute-values.ts` hands to util-dynamodb. The marshaller tells a plain object by
 * `value.constructor.name`: a map with a client-chosen key named `constructor` (a channel's modelMap)
 * would otherwise be refused as a class instance.
 */
export const MARSHALL_OPTIONS: Readonly<marshallOptions> = Object.freeze({
  removeUndefinedValues: true,
  convertClassInstanceToMap: true,
});

/**
 * Middleware every store call would run for nothing, each a few percent of a call's CPU (a call runs
 * its whole middleware stack, copied per command): the SDK's logger, which is a no-op logger here but
 * still copies and filters every input and output for it (the gateway logs each request itself, and
 * never a key); and the user-agent header, which DynamoDB does not need and which is built, then
 * signed, on every call.
 */
const UNNEEDED_MIDDLEWARE = ['loggerMiddleware', 'getUserAgentMiddleware'];

const withoutUnneededMiddleware = (client: DynamoDBClient): void => {
  for (const name of UNNEEDED_MIDDLEWARE) client.middlewareStack.remove(name);
};

/**
 * The shared document client, made on first use so that the local runtime can set the endpoint
 * (embedded engine or `DYNAMODB_ENDPOINT`) before any handler touches the store.
 */
export const store = (): DynamoDBDocumentClient => {
  if (documentClient) return documentClient;
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  const client = new DynamoDBClient({
    sha256: SigningSha256,
    ...(endpoint
      ? {
          endpoint,
          region: process.env.AWS_REGION ?? 'us-east-1',
          // The embedded engine accepts any credentials; a real endpoint uses the default chain.
          ...(process.env.AWS_ACCESS_KEY_ID ? {} : { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
        }
      : {}),
  });
  withoutUnneededMiddleware(client);
  // A copy: the document client writes its own defaults into the options it is given.
  documentClient = DynamoDBDocumentClient.from(withCallObserver(client), { marshallOptions: { ...MARSHALL_OPTIONS } });
  return documentClient;
};

/** Drops the client so the next call builds one from the current environment (local runtime restarts, tests). */
export const resetStore = (): void => {
  documentClient?.destroy();
  documentClient = undefined;
};
