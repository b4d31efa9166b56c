import { AsyncLocalStorage } from 'node:async_hooks';
import { observeAwsCalls, type AwsCall } from '../../functions/shared/aws/aws-call-observer.js';
import { currentFunctionGroup } from '../../infra/local/function-scope.js';

/**
 * Records every AWS call the local runtime's functions make, by the endpoint group whose invocation
 * made it. Calls outside any invocation (start-up, the test's own reads) are not a function's and are
 * left out. What it sees is what the SDK sends: a new operation, table or index in the code shows up
 * here without any change to this file.
 */
export interface AwsCallRecorder {
  /** The calls each function made, in order: by endpoint group, or by the name `runAsStackFunction` gave. */
  callsByGroup(): ReadonlyMap<string, readonly AwsCall[]>;
  stop(): void;
}

/** A function of the stack that the local runtime does not serve (the usage writer), by its name. */
const stackFunction = new AsyncLocalStorage<string>();

/** Runs one invocation of such a function, so that its calls are recorded under `name`. */
export const runAsStackFunction = <Result>(name: string, invoke: () => Promise<Result>): Promise<Result> =>
  stackFunction.run(name, invoke);

export const recordAwsCalls = (): AwsCallRecorder => {
  const calls = new Map<string, AwsCall[]>();
  observeAwsCalls((call) => {
    const name = currentFunctionGroup() ?? stackFunction.getStore();
    if (!name) return;
    const list = calls.get(name) ?? [];
    list.push(call);
    calls.set(name, list);
  });
  return {
    callsByGroup: () => calls,
    stop: () => observeAwsCalls(undefined),
  };
};
