import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// The collector, exposed for this process: retention is asserted by what a full collection frees.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * Whether what `ref` points to has been freed, after full collections. A WeakRef's target is kept
 * for the rest of the job that last read it, so each collection runs after the current job.
 */
export const isCollected = async (ref: WeakRef<object>): Promise<boolean> => {
  for (let round = 0; round < 3; round += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    gc();
  }
  return ref.deref() === undefined;
};
