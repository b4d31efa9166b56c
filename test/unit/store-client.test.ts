import { resetStore, store } from '../../functions/shared/store/client.js';

afterEach(() => {
  resetStore();
});

const middlewareNames = () =>
  store()
    .middlewareStack.identify()
    .map((entry) => entry.split(' - ')[0]);

describe('the store client', () => {
  test('runs no logger or user-agent middleware on its calls', () => {
    expect(middlewareNames()).not.toEqual(expect.arrayContaining(['loggerMiddleware']));
    expect(middlewareNames()).not.toEqual(expect.arrayContaining(['getUserAgentMiddleware']));
  });

  test('keeps what a call needs: serialising, retrying throttled calls and signing', () => {
    const names = middlewareNames().join(' ');
    expect(names).toContain('serializerMiddleware');
    expect(names).toContain('retryMiddleware');
    expect(names).toContain('httpSigningMiddleware');
    expect(names).toContain('deserializerMiddleware');
  });
});
