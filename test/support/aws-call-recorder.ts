import { observeAwsCalls, type AwsCall } from '../../functions/shared/aws/aws-call-observer.js';
import type { FunctionGroup } from '../../functions/shared/routes.js';
import { currentFunctionGroup } from '../../infra/local/function-scope.js';

/**
 * Records every AWS call the local runtime's functions make, by the endpoint group whose invocation
 * made it. Calls outside any invocation (start-up, the test's own reads) are not a function's and are
 * left out. What it sees is what the SDK sends: a new operation, table or index in the code shows up
 * here without any change to this file.
 */
export interface AwsCallRecorder {
  /** The calls each group made, in order. */
  callsByGroup(): ReadonlyMap<FunctionGroup, readonly AwsCall[]>;
  stop(): void;
}

export const recordAwsCalls = (): AwsCallRecorder => {
  const calls = new Map<FunctionGroup, AwsCall[]>();
  observeAwsCalls((call) => {
    const group = currentFunctionGroup();
    if (!group) return;
    const list = calls.get(group) ?? [];
    list.push(call);
    calls.set(group, list);
  });
  return {
    callsByGroup: () => calls,
    stop: () => observeAwsCalls(undefined),
  };
};
