import { AsyncLocalStorage } from 'node:async_hooks';
import { awsCallsObserved } from '../../functions/shared/aws/aws-call-observer.js';
import type { FunctionGroup } from '../../functions/shared/routes.js';

/**
 * Which endpoint group's function is serving the current request. On AWS each group is its own
 * function with its own role; locally they share one process, so this is how anything watching the
 * process (the AWS call recorder of the grant test) tells whose call it sees. Follows the whole
 * invocation, the writes after the response included.
 */
const scope = new AsyncLocalStorage<FunctionGroup>();

/**
 * Runs one invocation of a group's function: in the group's scope while AWS calls are observed (the
 * scope is for the observer), else as it is. An async context per invocation is otherwise an object
 * that every promise of the invocation carries, and that a request waiting on its usage record kept
 * past young collections.
 */
export const runAsFunction = <Result>(group: FunctionGroup, invoke: () => Promise<Result>): Promise<Result> =>
  awsCallsObserved() ? scope.run(group, invoke) : invoke();

/** The group whose invocation is running here, or `undefined` outside any (start-up, test code). */
export const currentFunctionGroup = (): FunctionGroup | undefined => scope.getStore();
