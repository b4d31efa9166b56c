import { promiseOf } from '../../functions/shared/promise-of.js';

describe('the promise of a call', () => {
  it('is the promise the call returned, not one waiting on it', () => {
    const returned = Promise.resolve('answer');
    expect(promiseOf(() => returned)).toBe(returned);
  });

  it('is a rejection with what the call threw before returning one, never a throw', async () => {
    const thrown = new Error('thrown at start');
    let promise: Promise<unknown> | undefined;
    expect(() => {
      promise = promiseOf(() => {
        throw thrown;
      });
    }).not.toThrow();
    await expect(promise).rejects.toBe(thrown);
  });
});
