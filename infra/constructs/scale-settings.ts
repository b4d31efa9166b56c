import type { Construct } from 'constructs';

/**
 * Capacity settings an operator sizes per stage, from CDK context (`cdk deploy -c name=value`):
 *
 * - `adminReservedConcurrency` (default 2, `0` for none): concurrent executions reserved for the
 *   admin function. Reserved concurrency is both a floor and a ceiling: however busy the relay
 *   functions are, they cannot take the last executions the admin function needs to raise a limit or
 *   revoke a key. It comes out of the account's regional pool, which must keep 100 unreserved; a new
 *   account with a small pool deploys with `-c adminReservedConcurrency=0`.
 * - `throttleRps` and `throttleBurst` (default: unset, so the account's regional API Gateway limit
 *   applies): the stage's steady request rate and burst; excess requests get a 429 from API Gateway
 *   before any function runs.
 */
export interface ScaleSettings {
  readonly adminReservedConcurrency: number | undefined;
  readonly throttle: { readonly rateLimit: number; readonly burstLimit: number } | undefined;
}

export const DEFAULT_ADMIN_RESERVED_CONCURRENCY = 2;

const numberFrom = (scope: Construct, name: string, integer: boolean): number | undefined => {
  const raw: unknown = scope.node.tryGetContext(name);
  if (raw === undefined || raw === null || raw === '') return undefined;
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw new Error(
      `Context '${name}' must be a non-negative ${integer ? 'integer' : 'number'}; got '${String(raw)}'.`,
    );
  }
  return value;
};

export const scaleSettingsFrom = (scope: Construct): ScaleSettings => {
  const reserved = numberFrom(scope, 'adminReservedConcurrency', true) ?? DEFAULT_ADMIN_RESERVED_CONCURRENCY;
  const rateLimit = numberFrom(scope, 'throttleRps', false);
  const burstLimit = numberFrom(scope, 'throttleBurst', true);
  if ((rateLimit === undefined) !== (burstLimit === undefined)) {
    throw new Error("Context 'throttleRps' and 'throttleBurst' go together: set both or neither.");
  }
  return {
    adminReservedConcurrency: reserved > 0 ? reserved : undefined,
    throttle: rateLimit !== undefined && burstLimit !== undefined ? { rateLimit, burstLimit } : undefined,
  };
};
