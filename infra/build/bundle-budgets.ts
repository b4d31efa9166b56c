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
 * Measured with `npm run build -- --analyze` (esbuild 0.28, @aws-sdk 3.1162, zod 4.6; KB = 1024 bytes).
 * Every group talks to DynamoDB: its client, lib-dynamodb and the @smithy/@aws-sdk core under them are
 * ≈ 170 KB of each bundle, and the schemas' zod (`zod/mini`, English messages) 23–38 KB; the gateway's
 * own code is 20–40 KB. No group over the budget gets under it without leaving those libraries.
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

const kilobytes = (count: number) => count * 1024;

const withinBudget: BundleBudget = { ceilingBytes: bundleSizeLimitBytes };

/** admin, embeddings, images, audio and console: the same libraries, a little gateway code each. */
const dynamoAndZod = 'DynamoDB stack ≈ 170 KB + zod/mini 23–38 KB + gateway code 20–40 KB.';

export const bundleBudgets: Readonly<Record<FunctionGroup, BundleBudget>> = {
  models: withinBudget,
  fallback: withinBudget,
  chat: {
    // 307.6 KB measured, + 191.6 KB on demand (the Messages, Responses and Gemini routes with their
    // translation; the Anthropic, Gemini, Bedrock and demo adapters; Bedrock Runtime with its
    // event-stream decoding; Secrets Manager).
    ceilingBytes: kilobytes(311),
    overBudget:
      'DynamoDB stack ≈ 185 KB (with the @smithy/core protocol code it shares with the Bedrock chunk) + zod/mini 31 KB ' +
      '+ gateway code (chat completions, the OpenAI adapter, relay) ≈ 25 KB.',
  },
  // 274.6 KB measured; aws-jwt-verify, for operators' console sessions, on demand.
  admin: { ceilingBytes: kilobytes(278), overBudget: dynamoAndZod },
  // 267.2 KB measured (the Gemini and demo adapters on demand).
  embeddings: { ceilingBytes: kilobytes(270), overBudget: dynamoAndZod },
  // 264.1 KB measured.
  images: { ceilingBytes: kilobytes(267), overBudget: dynamoAndZod },
  // 263.3 KB measured.
  audio: { ceilingBytes: kilobytes(266), overBudget: dynamoAndZod },
  // 266.1 KB measured; aws-jwt-verify loads with the first Cognito session. The page itself is beside the bundle.
  console: { ceilingBytes: kilobytes(269), overBudget: dynamoAndZod },
};
