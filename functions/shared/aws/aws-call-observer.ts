import type { HandlerExecutionContext, InitializeHandler, InitializeHandlerArguments } from '@smithy/types';

/**
 * Every AWS call the gateway makes goes through one of two shared SDK clients (Secrets Manager,
 * Bedrock Runtime), or is a store call on DynamoDB's JSON protocol (`store/operations.ts`). Each
 * client carries this middleware, and the store calls report themselves, so that a test can see
 * every operation with its input and compare what the code does with what the stack grants. With no
 * observer set (deployed functions, the local runtime), it only passes the call on.
 */

/** One AWS operation as the SDK is about to send it. */
export interface AwsCall {
  /** The SDK client's name, e.g. `DynamoDBClient`. */
  readonly client: string;
  /** The API operation, e.g. `UpdateItem`, `GetSecretValue`, `ConverseStream`. */
  readonly operation: string;
  /** The command's input: table and index names, secret ids, model ids. */
  readonly input: Readonly<Record<string, unknown>>;
}

export type AwsCallObserver = (call: AwsCall) => void;

let observer: AwsCallObserver | undefined;

/** Sets (or with `undefined` clears) the one observer of every AWS call made in this process. */
export const observeAwsCalls = (next: AwsCallObserver | undefined): void => {
  observer = next;
};

/** Whether anything observes AWS calls (a test): what serves only the observer is made only then. */
export const awsCallsObserved = (): boolean => observer !== undefined;

/** Tells the observer of a call sent without an SDK client's middleware (`store/operations.ts`). */
export const noteAwsCall = (client: string, operation: string, input: object): void => {
  // Nothing is built for a call no one observes (deployed functions, the local runtime).
  if (observer) observer({ client, operation, input: input as Readonly<Record<string, unknown>> });
};

/** `noteAwsCall` for a call whose input object has to be built: built only when observed. */
export const noteAwsCallLazily = (client: string, operation: string, describe: () => object): void => {
  if (observer) noteAwsCall(client, operation, describe());
};

/** The smallest view of an SDK client this needs: its middleware stack. */
interface ObservableClient {
  readonly middlewareStack: {
    add(
      middleware: (
        next: InitializeHandler<object, object>,
        context: HandlerExecutionContext,
      ) => InitializeHandler<object, object>,
      options: { step: 'initialize'; name: string; priority: 'high' },
    ): void;
  };
}

const observerMiddleware =
  (next: InitializeHandler<object, object>, context: HandlerExecutionContext): InitializeHandler<object, object> =>
  (args: InitializeHandlerArguments<object>) => {
    observer?.({
      client: context.clientName ?? 'unknown',
      operation: (context.commandName ?? 'unknown').replace(/Command$/, ''),
      input: args.input as Record<string, unknown>,
    });
    return next(args);
  };

/** Adds the observer middleware to a shared client; returns the client. */
export const withCallObserver = <Client extends ObservableClient>(client: Client): Client => {
  client.middlewareStack.add(observerMiddleware, { step: 'initialize', name: 'gatewayCallObserver', priority: 'high' });
  return client;
};
