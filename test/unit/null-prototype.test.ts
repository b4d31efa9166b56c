import { nullPrototypeRecord } from '../../functions/shared/http/null-prototype.js';

/** Request-derived names are entries of their own, whatever they are called. */
describe('a null-prototype record', () => {
  const inherited = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

  it('inherits nothing a name could reach', () => {
    const record = nullPrototypeRecord<string>();
    for (const name of inherited) {
      expect(name in record).toBe(false);
      expect(record[name]).toBeUndefined();
    }
  });

  it('keeps every such name as a plain entry, and its prototype as it was', () => {
    const record = nullPrototypeRecord<string>();
    for (const name of inherited) record[name] = `value of ${name}`;
    expect(Object.keys(record)).toEqual(inherited);
    expect(JSON.parse(JSON.stringify(record))).toEqual(
      Object.fromEntries(inherited.map((name) => [name, `value of ${name}`])),
    );
    expect(Object.prototype.isPrototypeOf.call(Object.prototype, record)).toBe(false);
    expect(Object.getPrototypeOf({ ...record })).toBe(Object.prototype);
  });

  it('is a record of its own each time', () => {
    const first = nullPrototypeRecord<number>();
    first.a = 1;
    expect(nullPrototypeRecord<number>().a).toBeUndefined();
  });
});
