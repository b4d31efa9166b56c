import { onFirstCall } from '../../functions/shared/providers/deferred-adapter.js';

interface Greeter {
  greet(name: string): Promise<string>;
  count(): Promise<number>;
}

/** A greeter whose module "loads" on a later turn, failing the first `failures` times. */
const deferredGreeter = (failures = 0) => {
  const loads: number[] = [];
  let left = failures;
  let greeted = 0;
  const greeter = onFirstCall<Greeter>(
    async () => {
      loads.push(loads.length + 1);
      await new Promise((resolve) => setImmediate(resolve));
      if (left-- > 0) throw new Error('the module failed to load');
      return {
        greet: async (name) => `hello ${name} (${++greeted})`,
        count: async () => greeted,
      };
    },
    { greet: true, count: true },
  );
  return { greeter, loads };
};

describe('an adapter loaded on its first call', () => {
  it('loads nothing until a method is called, then once for concurrent first calls', async () => {
    const { greeter, loads } = deferredGreeter();
    expect(loads).toEqual([]);

    const answers = await Promise.all([greeter.greet('a'), greeter.greet('b'), greeter.count()]);

    expect(loads).toEqual([1]);
    expect(answers.slice(0, 2).sort()).toEqual(['hello a (1)', 'hello b (2)']);
    expect(await greeter.count()).toBe(2);
    expect(loads).toEqual([1]);
  });

  it("passes the adapter's answers and failures through unchanged", async () => {
    const failing = onFirstCall<Greeter>(
      async () => ({
        greet: async () => {
          throw new RangeError('upstream refused');
        },
        count: async () => 0,
      }),
      { greet: true, count: true },
    );

    await expect(failing.greet('x')).rejects.toThrow(RangeError);
    expect(await failing.count()).toBe(0);
  });

  it('tries a module that failed to load again on the next call', async () => {
    const { greeter, loads } = deferredGreeter(1);

    await expect(greeter.greet('a')).rejects.toThrow('the module failed to load');
    expect(await greeter.greet('b')).toBe('hello b (1)');
    expect(loads).toEqual([1, 2]);
  });
});
