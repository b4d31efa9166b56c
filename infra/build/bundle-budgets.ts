/**
 * How much each function bundle may weigh. DESIGN §6 gives every bundle 250 KB minified, AWS SDK
 * clients included. A group that cannot fit with the libraries the stack is built on has a measured
 * ceiling instead: its size when last measured plus about 1%, rounded up to a whole KB, with what
 * fills it. `npm run build` and `test/infra/bundle.test.ts` fail when a bundle grows past its ceiling;
 * when a bundle shrinks, its ceiling comes down with it.
 *
 * Measured with `npm run build -- --analyze` (esbuild 0.28, @aws-sdk 3.1162, zod 4.6; KB = 1024 bytes).
 * Every group talks to DynamoDB: its client, lib-dynamodb and the @smithy/@aws-sdk core under them are
 * ≈ 170 KB of each bundle; the event-stream code `@smithy/core` imports on the off chance a protocol
 * streams (≈ 19 KB) stays only in the chat group, whose Bedrock client needs it.
 */
import type { FunctionGroup } from '../../functions/shared/routes.js';
import { bundleSizeLimitBytes } from './esbuild-options.js';

/** DESIGN §6: module init at most 80 ms on a laptop. Reported by `npm run build`, not enforced. */
export const initBudgetMs = 80;

export interface BundleBudget {
  /** The most the bundle may weigh, in bytes. */
  readonly ceilingBytes: number;
  /** For a ceiling above the DESIGN budget: what the bundle is made of and what would bring it down. */
  readonly overBudget?: string;
}

const kilobytes = (count: number) => count * 1024;

const withinBudget: BundleBudget = { ceilingBytes: bundleSizeLimitBytes };

/** admin, embeddings, images and audio: the same libraries, a little gateway code each. */
const dynamoZodAndSecrets =
  'DynamoDB stack ≈ 170 KB + zod (classic API) 88–96 KB + Secrets Manager client 13–15 KB + gateway code 20–30 KB. ' +
  'zod/mini for the schemas (≈ −40 to −47 KB) and package.json files cut to their version (≈ −4 KB) would leave ≈ 270 KB.';

export const bundleBudgets: Readonly<Record<FunctionGroup, BundleBudget>> = {
  models: withinBudget,
  fallback: withinBudget,
  chat: {
    // 488.4 KB measured (with the credential scrubber, request log and metrics, sharded bookkeeping).
    ceilingBytes: kilobytes(494),
    overBudget:
      'DynamoDB stack ≈ 190 KB + zod (classic API) 96 KB + Bedrock Runtime client with its event-stream decoding ≈ 55 KB ' +
      '+ Secrets Manager client 13 KB + gateway code (providers, translation, relay, chat) ≈ 90 KB. zod/mini would save ' +
      '≈ 47 KB; fitting 250 KB would also take Bedrock out of this function.',
  },
  // 360.4 KB measured: aws-jwt-verify (≈ 17 KB) checks operators' console sessions.
  admin: { ceilingBytes: kilobytes(365), overBudget: `${dynamoZodAndSecrets} aws-jwt-verify ≈ 17 KB.` },
  // 339.5 KB measured: the Gemini adapter (batchEmbedContents, ≈ 4.5 KB with its error schema) joined OpenAI's.
  embeddings: { ceilingBytes: kilobytes(343), overBudget: dynamoZodAndSecrets },
  // 332.4 KB measured.
  images: { ceilingBytes: kilobytes(336), overBudget: dynamoZodAndSecrets },
  // 331.5 KB measured.
  audio: { ceilingBytes: kilobytes(335), overBudget: dynamoZodAndSecrets },
  // 337.0 KB measured: the admin group's libraries and aws-jwt-verify; the page itself is beside the bundle.
  console: { ceilingBytes: kilobytes(341), overBudget: `${dynamoZodAndSecrets} aws-jwt-verify ≈ 17 KB.` },
};
