/**
 * Small shapes of promise code the hot paths share. An async function wrapping a call that already
 * returns a promise adds a promise of its own that waits on it, and a callback written in place is a
 * new object on every call: for an invocation that waits on its usage record under load, each was
 * one more object copied by young collections.
 */

/** The promise of `work`, started now: a throw before it returns one is its rejection, as in an async function. */
export const promiseOf = <T>(work: () => Promise<T>): Promise<T> => {
  try {
    return work();
  } catch (error) {
    return Promise.reject(error);
  }
};

/** A callback that does nothing (a settled promise's value, a late error already dealt with), made once. */
export const nothing = (): void => undefined;
