import { AsyncLocalStorage } from 'node:async_hooks';
import type { FunctionGroup } from '../../functions/shared/routes.js';

/**
 * Which endpoint group's function is serving the current request. On AWS each group is its own
 * function with its own role; locally they share one process, so this is how anything watching the
 * process (the AWS call recorder of the grant test) tells whose call it sees. Follows the whole
 * invocation, the writes after the response included.
 */
const scope = new AsyncLocalStorage<FunctionGroup>();

/** Runs one invocation of a group's function. */
export const runAsFunction = <Result>(group: FunctionGroup, invoke: () => Promise<Result>): Promise<Result> =>
  scope.run(group, invoke);

/** The group whose invocation is running here, or `undefined` outside any (start-up, test code). */
export const currentFunctionGroup = (): FunctionGroup | undefined => scope.getStore();
