/**
 * Whether this process serves many invocations at once. Lambda's default compute gives each
 * execution environment one invocation at a time, billed until it returns. On Lambda Managed
 * Instances one environment serves many, and Lambda says so in `AWS_LAMBDA_MAX_CONCURRENCY`; the
 * local runtime serves every request in one process, and marks it with `GATEWAY_CONCURRENT_INVOCATIONS`.
 * Read on each call: the local runtime sets its mark when it starts, after the modules have loaded.
 */
export const CONCURRENT_INVOCATIONS_VARIABLE = 'GATEWAY_CONCURRENT_INVOCATIONS';

export const servesConcurrentInvocations = (): boolean =>
  Number(process.env.AWS_LAMBDA_MAX_CONCURRENCY ?? 1) > 1 || process.env[CONCURRENT_INVOCATIONS_VARIABLE] === 'true';
