import type * as z from '../shared/schemas/zod.js';
import { validationError } from '../shared/middleware/validate-body.js';

/**
 * Validates one part of an admin request against its route's schema: the admin function serves many
 * routes, so validation happens per route rather than in the shared middleware. A failure is the same
 * 400 envelope the middleware gives, with `param` naming the field. The schema is built on first use
 * (`lazySchema`).
 */
export const parseWith = <Schema extends z.ZodMiniType>(schema: () => Schema, value: unknown): z.output<Schema> => {
  const result = schema().safeParse(value);
  if (!result.success) throw validationError(result.error, value);
  return result.data;
};
