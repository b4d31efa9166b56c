import type { Construct } from 'constructs';
import { stackSetting } from '../stack-settings.js';

/**
 * Capacity settings an operator sizes per stage, from CDK context (`cdk deploy -c name=value`):
 *
 * - `adminReservedConcurrency` (default none): concurrent executions reserved for the admin
 *   function, a baseline that busy relays cannot take from operators. It is also the function's
 *   ceiling, and it comes out of the account's regional pool, which must keep 100 unreserved: a new
 *   account (often 10 in all) cannot reserve any. The admin throttle below is what keeps the admin
 *   function from being flooded; reserving is an opt-in for accounts with room to spare.
 * - `throttleRps` and `throttleBurst` (default: unset, so the account's regional API Gateway limit
 *   applies): the stage's steady request rate and burst; excess requests get a 429 from API Gateway
 *   before any function runs.
 * - `adminThrottleRps`/`adminThrottleBurst` and `signInThrottleRps`/`signInThrottleBurst`: method
 *   throttles on every `/admin/v1` method and on the console's sign-in, so that a flood of guessed
 *   keys or passwords is refused by API Gateway, uses no function and no Cognito quota.
 */
export interface Throttle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

export interface ScaleSettings {
  readonly adminReservedConcurrency: number | undefined;
  readonly throttle: Throttle | undefined;
  readonly adminThrottle: Throttle;
  readonly signInThrottle: Throttle;
}

export const scaleSettingsFrom = (scope: Construct): ScaleSettings => {
  const reserved = stackSetting(scope.node, 'adminReservedConcurrency');
  const rateLimit = stackSetting(scope.node, 'throttleRps');
  const burstLimit = stackSetting(scope.node, 'throttleBurst');
  if ((rateLimit === undefined) !== (burstLimit === undefined)) {
    throw new Error('-c throttleRps and -c throttleBurst go together: set both or neither.');
  }
  return {
    adminReservedConcurrency: reserved !== undefined && reserved > 0 ? reserved : undefined,
    throttle: rateLimit !== undefined && burstLimit !== undefined ? { rateLimit, burstLimit } : undefined,
    adminThrottle: {
      rateLimit: stackSetting(scope.node, 'adminThrottleRps')!,
      burstLimit: stackSetting(scope.node, 'adminThrottleBurst')!,
    },
    signInThrottle: {
      rateLimit: stackSetting(scope.node, 'signInThrottleRps')!,
      burstLimit: stackSetting(scope.node, 'signInThrottleBurst')!,
    },
  };
};
