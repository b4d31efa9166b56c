/**
 * zod, as every schema of the gateway uses it: the functional `zod/mini` build, with English issue
 * messages. zod's classic build costs each function 41–50 KB of bundle and about 25 ms of cold start
 * (its schemas carry every method as a closure, built per schema); `zod/mini` has the same parser
 * and issues, with checks and wrappers as functions (`z.optional(s)`, `s.check(z.minLength(1))`)
 * that tree shaking keeps only when used. Unlike the classic build it does not load a locale of its
 * own, and the messages reach clients in 400 answers (`Invalid value for 'n': Too small: …`), so
 * the English one is set here, where every schema module gets `z` from.
 */
import { config } from 'zod/mini';
import english from 'zod/v4/locales/en.js';

config(english());

export * from 'zod/mini';
