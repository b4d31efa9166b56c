import vm from 'node:vm';
import { withTopLevelFunctions } from '../../infra/build/top-level-functions.js';
import { topLevelFunctions } from '../support/top-level-functions.js';

/**
 * The bundles' top-level arrows become functions (`top-level-functions.ts`): each module below must
 * export the same values rewritten as written, and keep an arrow only where one reads what it takes
 * from its surroundings or sits inside a function or class.
 */

/** The module's exports, each function called by `probe` as a caller would. */
const evaluate = async (code: string): Promise<unknown> => {
  const module = new vm.SourceTextModule(code);
  await module.link(() => {
    throw new Error('no imports here');
  });
  await module.evaluate();
  const { probe, default: byDefault } = module.namespace as { probe: () => unknown; default?: (x: number) => unknown };
  return [await probe(), byDefault?.(1)];
};

const modules: Record<string, { code: string; arrowsKept: number }> = {
  'a concise body': {
    code: 'export const add = (a, b) => a + b;\nexport const probe = () => [add(2, 3), add.name];',
    arrowsKept: 0,
  },
  'a block body': {
    code: 'const clamp = (n) => { if (n > 9) return 9; return n; };\nexport const probe = () => [clamp(12), clamp(4)];',
    arrowsKept: 0,
  },
  'one parameter without parentheses, and an object literal body': {
    code: 'const wrap = x => ({ x });\nexport const probe = () => wrap(1);',
    arrowsKept: 0,
  },
  'a line break after the arrow, which a bare return would end': {
    code: 'const twice = async (x) =>\n  x * 2;\nexport const probe = async () => [await twice(2), twice.constructor.name];',
    arrowsKept: 0,
  },
  'async with one bare parameter': {
    code: 'const later = async x => x + 1;\nexport const probe = async () => later(1);',
    arrowsKept: 0,
  },
  'defaults, destructuring and rest': {
    code: 'const f = ({ a = 1 } = {}, [b] = [2], ...rest) => [a, b, rest];\nexport const probe = () => [f(), f({ a: 5 }, [6], 7, 8)];',
    arrowsKept: 0,
  },
  'a comment between async and the parameters, and a trailing comma': {
    code: 'const add = async /* two */ (a, b,) => a + b;\nexport const probe = async () => [await add(1, 2), add.length];',
    arrowsKept: 0,
  },
  'comments that hold an arrow': {
    code: 'const id = (a /* => */) => /* => */ a;\nexport const probe = () => id(7);',
    arrowsKept: 0,
  },
  'a comma expression body': {
    code: 'let n = 0;\nconst bump = () => (n += 1, n * 10);\nexport const probe = () => [bump(), bump()];',
    arrowsKept: 0,
  },
  'members of a top-level object and arguments of a top-level call': {
    code: 'const table = { double: (x) => x * 2, nested: { triple: (x) => x * 3 } };\nconst mapped = [1, 2].map((x) => x + 1);\nexport const probe = () => [table.double(2), table.nested.triple(2), mapped];',
    arrowsKept: 0,
  },
  'an arrow inside a top-level arrow stays as written': {
    code: 'const scale = (n) => [1, 2].map((v) => v * n);\nexport const probe = () => scale(3);',
    arrowsKept: 0,
  },
  'the default export': {
    code: 'export default (x) => x + 1;\nexport const probe = () => 0;',
    arrowsKept: 0,
  },
  'an arrow that reads this keeps its meaning': {
    code: 'const self = () => this;\nconst inner = () => () => this;\nexport const probe = () => [self(), self.call({}), inner().call({})];',
    arrowsKept: 2,
  },
  'arrows in class bodies, where this is the instance': {
    code: 'class Box { value = 4; read = () => this.value; static make = () => new Box(); }\nexport const probe = () => [Box.make().read.call(null)];',
    arrowsKept: 0,
  },
  'a computed class key that reads this': {
    code: 'const make = () => class { [String(this)]() {} };\nexport const probe = () => Object.getOwnPropertyNames(make.call({}).prototype);',
    arrowsKept: 1,
  },
  'a class heritage expression that reads this': {
    code: 'const base = () => this ?? Object;\nclass Thing extends (base()) {}\nexport const probe = () => Object.getPrototypeOf(Thing) === Object;',
    arrowsKept: 1,
  },
};

describe('top-level arrows written as functions', () => {
  it.each(Object.entries(modules))(
    '%s: the same exports, and only the arrows that must stay',
    async (_, { code, arrowsKept }) => {
      const rewritten = withTopLevelFunctions(code);

      expect(await evaluate(rewritten)).toEqual(await evaluate(code));
      // The probe itself is a top-level arrow: it is rewritten too.
      expect(topLevelFunctions(rewritten).arrows).toHaveLength(arrowsKept);
      expect(topLevelFunctions(code).arrows.length).toBeGreaterThan(arrowsKept);
    },
  );

  it('leaves code it cannot parse as it is, for esbuild to report', () => {
    const broken = 'export const f = (a => a;';
    expect(withTopLevelFunctions(broken)).toBe(broken);
  });

  it('reads CommonJS, whose top level may return, and whose arguments are the module wrapper’s', () => {
    const commonJs =
      'const f = (a) => a * 2;\nconst count = () => arguments.length;\nif (!module) return;\nmodule.exports = [f, count];';
    expect(withTopLevelFunctions(commonJs)).toBe(
      'const f = function(a){return ( a * 2)};\nconst count = () => arguments.length;\nif (!module) return;\nmodule.exports = [f, count];',
    );
  });
});
