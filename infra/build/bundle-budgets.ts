/**
 * How much each function bundle may weigh. DESIGN §6 gives every bundle 250 KB minified, AWS SDK
 * clients included. A group that cannot fit with the libraries the stack is built on has a measured
 * ceiling instead: its size when last measured plus about 1%, rounded up to a whole KB, with what
 * fills it. `npm run build` and `test/infra/bundle.test.ts` fail when a bundle grows past its ceiling;
 * when a bundle shrinks, its ceiling comes down with it.
 *
 * A bundle's size is what a cold start loads: the entry and the chunks it imports statically. The
 * Bedrock Runtime and Secrets Manager clients are chunks loaded on first use (`bundle-chunks.ts`),
 * reported beside the size and not counted in it.
 *
 * Measured with `npm run build -- --analyze` (esbuild 0.28, @aws-sdk 3.1162, zod 4.6; KB = 1024 bytes),
 * every group fits: 43–121 KB. The store's calls need only `store/` code and Node's built-ins at init
 * (`store/connection.ts`); the SDK's DynamoDB client is a chunk loaded only where the SDK must resolve
 * the store's endpoint or credentials. The schemas' zod (`zod/mini`, English messages) is 23–38 KB of
 * each; the rest is the gateway's own code.
 */
import type { FunctionGroup } from '../../functions/shared/routes.js';
import { bundleSizeLimitBytes } from './esbuild-options.js';

/** DESIGN §6: module init at most 80 ms on a laptop. Reported by `npm run build`, not enforced. */
export const initBudgetMs = 80;

/**
 * DESIGN §6: a cold start under the Lambda runtime interface client at most 1.5× a hello-world
 * handler's, both measured in the same run. Reported by `npm run build`, not enforced.
 */
export const coldStartBudgetRatio = 1.5;

export interface BundleBudget {
  /** The most the bundle may weigh, in bytes. */
  readonly ceilingBytes: number;
  /** For a ceiling above the DESIGN budget: what the bundle is made of and what would bring it down. */
  readonly overBudget?: string;
}

const withinBudget: BundleBudget = { ceilingBytes: bundleSizeLimitBytes };

export const bundleBudgets: Readonly<Record<FunctionGroup, BundleBudget>> = {
  models: withinBudget,
  fallback: withinBudget,
  chat: withinBudget,
  admin: withinBudget,
  embeddings: withinBudget,
  images: withinBudget,
  audio: withinBudget,
  console: withinBudget,
};
