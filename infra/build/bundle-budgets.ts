/**
 * The DESIGN §6 budgets `npm run build` and `npm run bench` hold the function bundles to, besides
 * the size (`bundleSizeLimitBytes` in `esbuild-options.ts`: 250 KB a bundle, AWS SDK clients
 * included, which `npm run build` and `test/infra/bundle.test.ts` enforce for every group).
 *
 * A bundle's size is what a cold start loads: the entry and the chunks it imports statically. The
 * Bedrock Runtime and Secrets Manager clients, and the SDK's DynamoDB client where the SDK must resolve
 * the store, are chunks loaded on first use (`bundle-chunks.ts`), reported beside the size and not
 * counted in it. Measured with `npm run build -- --analyze` (esbuild 0.28, zod 4.6; KB = 1024 bytes),
 * the groups weigh 45–123 KB: the schemas' zod (`zod/mini`, English messages) 23–38 KB of each, the
 * rest the gateway's own code.
 */
/** DESIGN §6: module init at most 80 ms on a laptop. Reported by `npm run build`, not enforced. */
export const initBudgetMs = 80;

/**
 * DESIGN §6: a cold start under the Lambda runtime interface client at most 1.5× a hello-world
 * handler's, both measured in the same run. Reported by `npm run build`, not enforced.
 */
export const coldStartBudgetRatio = 1.5;
