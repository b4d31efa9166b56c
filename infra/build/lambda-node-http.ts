/**
 * Stands in for `node:http` in the Lambda bundles (see `moduleAliases` in `esbuild-options.ts`): the
 * same module, loaded with `require` rather than `import`. Node builds an ES module facade for a
 * built-in by reading every export, and `node:http`'s exports include lazy getters (`WebSocket`,
 * `EventSource`, …) that load undici: about 15 ms of every cold start, for classes nothing here
 * uses. `require` returns the module object without touching them.
 */
import { createRequire } from 'node:module';
import type * as NodeHttp from 'node:http';

const http = createRequire(import.meta.url)('node:http') as typeof NodeHttp;

export default http;
// The names the bundled code imports; a bundle that imports another fails to build, never to run.
export const { Agent, STATUS_CODES, get, request } = http;
