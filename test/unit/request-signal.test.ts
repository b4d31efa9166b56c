import { requestSignal } from '../../functions/shared/middleware/gateway-handler.js';

/**
 * A request's signal is aborted by whichever comes first, its function's deadline or its client's
 * leaving, with that one's reason (the two are reported differently), as `AbortSignal.any` would.
 */

const reasons = { deadline: new Error('deadline'), client: new Error('client') } as const;

describe("a request's signal", () => {
  it.each([
    ['deadline', 'client'],
    ['client', 'deadline'],
  ] as const)('takes the reason of the first abort (%s, then %s)', (first, second) => {
    const controllers = { deadline: new AbortController(), client: new AbortController() };
    const signal = requestSignal(controllers.deadline.signal, controllers.client.signal);
    let heard = 0;
    signal.addEventListener('abort', () => (heard += 1));
    expect(signal.aborted).toBe(false);
    controllers[first].abort(reasons[first]);
    controllers[second].abort(reasons[second]);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reasons[first]);
    expect(heard).toBe(1);
  });

  it('is aborted from the start when a source already is, with the deadline first as AbortSignal.any', () => {
    for (const aborted of [['deadline'], ['client'], ['deadline', 'client']] as const) {
      const controllers = { deadline: new AbortController(), client: new AbortController() };
      for (const name of aborted) controllers[name].abort(reasons[name]);
      const signal = requestSignal(controllers.deadline.signal, controllers.client.signal);
      const expected = AbortSignal.any([controllers.deadline.signal, controllers.client.signal]);
      expect(signal.aborted).toBe(true);
      expect(signal.reason).toBe(expected.reason);
    }
  });

  it('is the deadline itself on a function without a client to watch', () => {
    const deadline = new AbortController().signal;
    expect(requestSignal(deadline, undefined)).toBe(deadline);
  });
});
