import type * as z from './zod.js';

type ObjectSchema = z.ZodMiniObject<z.core.$ZodLooseShape, z.core.$loose>;
type Parse = (input: unknown) => ReturnType<z.ZodMiniType['safeParse']>;

/** Key sets with a schema of their own, per request schema; past this, bodies are parsed whole. */
const MAX_KEY_SETS = 256;
/** Members a key set's bit mask can hold; a schema naming more is parsed whole (none does: 21 at most). */
const MAX_MEMBERS = 31;

/**
 * A loose object schema runs the schema of every member it names on every parse, present or not: a
 * chat request names twenty-one members and its body usually holds three, and the absent ones were
 * most of the parse. A body is parsed instead with the schema's members that it holds, plus those
 * that are required or defaulted, in the schema's order: the members it does not hold would each
 * have passed without a word and added nothing, so the result and the issues are the same (the
 * unknown members pass through either way). Schemas of other kinds, with checks of their own over
 * the whole object, or with more than 31 members, are parsed as they are.
 */
export const sparseObjectParser = (schema: z.ZodMiniType): Parse => {
  const def = (schema as ObjectSchema)._zod.def;
  const whole: Parse = (input) => schema.safeParse(input);
  const names = def.type === 'object' ? Object.keys(def.shape) : [];
  // A key set is a bit mask of the schema's members: a number, not a string made on every request.
  const narrowable =
    def.type === 'object' &&
    def.catchall?._zod.def.type === 'unknown' &&
    (def.checks?.length ?? 0) === 0 &&
    names.length <= MAX_MEMBERS;
  if (!narrowable) return whole;
  const shape = def.shape;
  // Always kept: a required member's absence is an issue, and a defaulted one's default is written.
  let always = 0;
  names.forEach((name, index) => {
    const member = shape[name]!._zod;
    if (member.optin !== 'optional' || member.optout !== 'optional') always |= 1 << index;
  });
  const byKeySet = new Map<number, ObjectSchema>();
  return (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return whole(input);
    const record = input as Record<string, unknown>;
    let keySet = always;
    for (let index = 0; index < names.length; index += 1) {
      if (record[names[index]!] !== undefined) keySet |= 1 << index;
    }
    let sparse = byKeySet.get(keySet);
    if (!sparse) {
      if (byKeySet.size >= MAX_KEY_SETS) return whole(input);
      const kept: z.core.$ZodLooseShape = {};
      names.forEach((name, index) => {
        if (keySet & (1 << index)) kept[name] = shape[name]!;
      });
      // A clone of the schema with fewer members: zod is not loaded by this module, so a function
      // whose endpoints validate no body does not load it either.
      sparse = (schema as ObjectSchema).clone({ ...def, shape: kept });
      byKeySet.set(keySet, sparse);
    }
    return sparse.safeParse(input);
  };
};
