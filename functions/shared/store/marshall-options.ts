import type { marshallOptions } from '@aws-sdk/util-dynamodb';

/**
 * How plain values become DynamoDB attribute values (`attribute-values.ts`, and what it hands to
 * util-dynamodb). The marshaller tells a plain object by `value.constructor.name`: a map with a
 * client-chosen key named `constructor` (a channel's modelMap) would otherwise be refused as a class
 * instance.
 */
export const MARSHALL_OPTIONS: Readonly<marshallOptions> = Object.freeze({
  removeUndefinedValues: true,
  convertClassInstanceToMap: true,
});
