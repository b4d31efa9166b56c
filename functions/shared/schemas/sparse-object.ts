import type * as z from './zod.js';

type ObjectSchema = z.ZodMiniObject<z.core.$ZodLooseShape, z.core.$loose>;
type Parse = (input: unknown) => ReturnType<z.ZodMiniType['safeParse']>;

/** Key sets with a schema of their own, per request schema; past this, bodies are parsed whole. */
const MAX_KEY_SETS = 256;

/**
 * A loose object schema runs the schema of every member it names on every parse, present or not: a
 * chat request names twenty-one members and its body usually holds three, and the absent ones were
 * most of the parse. A body is parsed instead with the schema's members that it holds, plus those
 * that are required or defaulted, in the schema's order: the members it does not hold would each
 * have passed without a word and added nothing, so the result and the issues are the same (the
 * unknown members pass through either way). Schemas of other kinds, or with checks of their own
 * over the whole object, are parsed as they are.
 */
export const sparseObjectParser = (schema: z.ZodMiniType): Parse => {
  const def = (schema as ObjectSchema)._zod.def;
  const whole: Parse = (input) => schema.safeParse(input);
  if (def.type !== 'object' || def.catchall?._zod.def.type !== 'unknown' || (def.checks?.length ?? 0) > 0) {
    return whole;
  }
  const shape = def.shape;
  const names = Object.keys(shape);
  // Always kept: a required member's absence is an issue, and a defaulted one's default is written.
  const always = names.map((name) => {
    const member = shape[name]!._zod;
    return member.optin !== 'optional' || member.optout !== 'optional';
  });
  const byKeySet = new Map<string, ObjectSchema>();
  return (input) => {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) return whole(input);
    const record = input as Record<string, unknown>;
    let keySet = '';
    for (let index = 0; index < names.length; index += 1) {
      keySet += always[index] || record[names[index]!] !== undefined ? '1' : '0';
    }
    let sparse = byKeySet.get(keySet);
    if (!sparse) {
      if (byKeySet.size >= MAX_KEY_SETS) return whole(input);
      const kept: z.core.$ZodLooseShape = {};
      for (let index = 0; index < names.length; index += 1) {
        if (keySet[index] === '1') kept[names[index]!] = shape[names[index]!]!;
      }
      // A clone of the schema with fewer members: zod is not loaded by this module, so a function
      // whose endpoints validate no body does not load it either.
      sparse = (schema as ObjectSchema).clone({ ...def, shape: kept });
      byKeySet.set(keySet, sparse);
    }
    return sparse.safeParse(input);
  };
};
