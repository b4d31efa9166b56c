import type { DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import type { CredentialsProvider } from '../aws/function-credentials.js';
import { StoreHttpHandler } from './store-http.js';
import { directStoreTarget, type StoreTarget } from './store-target.js';

/**
 * Where the functions' DynamoDB calls go and how they are signed, resolved once per process: the
 * endpoint's URL, the credentials to sign with (`store-signing.ts`) and one keep-alive HTTP handler
 * (`store-http.ts`). A deployed function (and the local runtime, on its embedded or configured
 * endpoint) needs nothing else: its credentials are those Lambda gives it and its endpoint follows
 * from its region (`store-target.ts`). That is a few KB of code at init, where the SDK's DynamoDB and
 * document clients were about 175 KB, most of a function's bundle and half of its cold start, for a
 * pipeline each call would pay for again (see docs/cost.md). Anywhere else (a laptop reaching a real
 * table through a profile, FIPS or dual-stack endpoints, an endpoint URL set for the SDK, another
 * partition), the calls go through the SDK's DynamoDB client, loaded on first use, so that they
 * resolve and retry exactly as the SDK does.
 */

/** Calls signed here and sent on the shared handler. */
export interface SignedConnection {
  readonly kind: 'signed';
  readonly url: URL;
  readonly region: string;
  readonly credentials: CredentialsProvider;
  readonly handler: StoreHttpHandler;
  /** Added to this machine's clock to date a signature: set from the service's clock when it refuses ours. */
  clockOffsetMs: number;
}

/** Calls sent through the SDK's DynamoDB client: inputs and outputs in attribute-value form, as on the wire. */
export interface SdkConnection {
  readonly kind: 'sdk';
  /** `operation` as DynamoDB names it (`GetItem`, `BatchWriteItem`, …). */
  send(operation: string, input: object): Promise<object>;
}

export type StoreConnection = SignedConnection | SdkConnection;

let handler: StoreHttpHandler | undefined;
let connection: Promise<StoreConnection> | undefined;
let release: (() => void) | undefined;

/**
 * The one HTTP handler every store call goes through (keep-alive, as the SDK's default): a test's
 * store wire listens on it.
 */
export const storeRequestHandler = (): StoreHttpHandler => (handler ??= new StoreHttpHandler());

export const signedConnection = ({ url, region, credentials }: StoreTarget): SignedConnection => ({
  kind: 'signed',
  url,
  region,
  credentials,
  handler: storeRequestHandler(),
  clockOffsetMs: 0,
});

/** The SDK's client, on the shared handler, with a command for each operation the store sends. */
const sdkConnection = async (): Promise<SdkConnection> => {
  const sdk = await import('@aws-sdk/client-dynamodb');
  // The SDK's default handler would do as well; this one lets the store's wire be listened on in tests.
  const client = new sdk.DynamoDBClient({
    requestHandler: storeRequestHandler() as unknown as DynamoDBClientConfig['requestHandler'],
  });
  const commands: Record<string, unknown> = {
    GetItem: sdk.GetItemCommand,
    PutItem: sdk.PutItemCommand,
    UpdateItem: sdk.UpdateItemCommand,
    DeleteItem: sdk.DeleteItemCommand,
    Query: sdk.QueryCommand,
    Scan: sdk.ScanCommand,
    BatchGetItem: sdk.BatchGetItemCommand,
    BatchWriteItem: sdk.BatchWriteItemCommand,
  };
  release = () => client.destroy();
  return {
    kind: 'sdk',
    send: async (operation, input) => {
      // One command class per operation; the input is already the command's (attribute-value form).
      const Command = commands[operation] as new (input: object) => InstanceType<typeof sdk.GetItemCommand>;
      const { $metadata, ...output } = await client.send(new Command(input));
      void $metadata;
      return output;
    },
  };
};

/** The connection for the current environment, made on first use (the local runtime sets the endpoint first). */
export const storeConnection = (): Promise<StoreConnection> => {
  if (!connection) {
    const target = directStoreTarget(process.env);
    const made: Promise<StoreConnection> = target ? Promise.resolve(signedConnection(target)) : sdkConnection();
    connection = made;
    // A client that failed to load is tried again by the next call.
    made.catch(() => {
      if (connection === made) connection = undefined;
    });
  }
  return connection;
};

/** Forgets the connection so the next call resolves one from the current environment (local runtime restarts, tests). */
export const resetStoreConnection = (): void => {
  release?.();
  release = undefined;
  handler?.destroy();
  handler = undefined;
  connection = undefined;
};
