import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest, HttpResponse, RequestSigner } from '@smithy/types';
import { SigningSha256 } from '../aws/signing-sha256.js';
import type { StoreOperation } from './operations.js';
import { directStoreTarget, type StoreTarget } from './store-target.js';

/**
 * Where the functions' DynamoDB calls go and how they are signed, resolved once per process: the
 * endpoint's URL, a Signature V4 signer and one keep-alive HTTP handler. A deployed function (and the
 * local runtime, on its embedded or configured endpoint) needs nothing else: its credentials are in
 * its environment and its endpoint follows from its region (`store-target.ts`). That is about 27 KB
 * of code at init, where the SDK's DynamoDB and document clients are about 175 KB, most of a
 * function's bundle and half of its cold start, for a pipeline each call would pay for again (see
 * docs/cost.md). Anywhere else (a laptop reaching a real table through a profile, FIPS or dual-stack
 * endpoints, an endpoint URL set for the SDK, another partition), the calls go through the SDK's
 * DynamoDB client, loaded on first use, so that they resolve and retry exactly as the SDK does.
 */

export interface StoreHandler {
  handle(request: HttpRequest, options?: Record<string, unknown>): Promise<{ response: HttpResponse }>;
}

/** Calls signed here and sent on the shared handler. */
export interface SignedConnection {
  readonly kind: 'signed';
  readonly url: URL;
  readonly signer: RequestSigner;
  readonly handler: StoreHandler;
  /** Added to this machine's clock to date a signature: set from the service's clock when it refuses ours. */
  clockOffsetMs: number;
}

/** Calls sent through the SDK's DynamoDB client: inputs and outputs in attribute-value form, as on the wire. */
export interface SdkConnection {
  readonly kind: 'sdk';
  send(operation: StoreOperation, input: object): Promise<object>;
}

export type StoreConnection = SignedConnection | SdkConnection;

let handler: NodeHttpHandler | undefined;
let connection: Promise<StoreConnection> | undefined;
let release: (() => void) | undefined;

/**
 * The one HTTP handler every store call goes through (keep-alive, as the SDK's default): a test's
 * store wire listens on it.
 */
export const storeRequestHandler = (): NodeHttpHandler => (handler ??= new NodeHttpHandler());

const signedConnection = (target: StoreTarget): SignedConnection => ({
  kind: 'signed',
  url: target.url,
  signer: new SignatureV4({
    service: 'dynamodb',
    region: target.region,
    credentials: target.credentials,
    sha256: SigningSha256,
  }),
  handler: storeRequestHandler(),
  clockOffsetMs: 0,
});

/** The SDK's client, on the shared handler, with a command for each operation the store sends. */
const sdkConnection = async (): Promise<SdkConnection> => {
  const sdk = await import('@aws-sdk/client-dynamodb');
  const client = new sdk.DynamoDBClient({ sha256: SigningSha256, requestHandler: storeRequestHandler() });
  const commands: Record<StoreOperation, unknown> = {
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
