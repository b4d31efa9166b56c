import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { convertToAttr } from '@aws-sdk/util-dynamodb';
import { MARSHALL_OPTIONS } from './marshall-options.js';

/**
 * Items in DynamoDB's attribute-value form, for the writes every request makes. What they hold is
 * plain: strings, numbers, booleans, null, and maps and lists of those. util-dynamodb's marshaller
 * tries each kind in turn through constructor names and, for every number, builds and searches an
 * array of the special values: a twentieth of all bytes a request allocated under load. Plain values
 * take one `typeof` here; anything else (sets, binary, class instances, numbers outside the safe
 * integers, which it refuses) goes to util-dynamodb itself, so the result is always what `marshall`
 * with `MARSHALL_OPTIONS` gives (`test/unit/attribute-values.test.ts` holds it to that).
 */

const isPlainObject = (value: object): value is Record<string, unknown> => {
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
};

const toAttribute = (value: unknown): AttributeValue => {
  switch (typeof value) {
    case 'string':
      return { S: value };
    case 'number':
      if (Number.isSafeInteger(value) || (Number.isFinite(value) && !Number.isInteger(value))) {
        return { N: String(value) };
      }
      break;
    case 'boolean':
      return { BOOL: value };
    case 'object':
      if (value === null) return { NULL: true };
      if (Array.isArray(value)) return { L: toAttributeList(value) };
      if (isPlainObject(value)) return { M: toAttributeMap(value) };
      break;
  }
  return convertToAttr(value, MARSHALL_OPTIONS);
};

const toAttributeList = (values: readonly unknown[]): AttributeValue[] => {
  const list: AttributeValue[] = [];
  for (const value of values) if (value !== undefined && typeof value !== 'function') list.push(toAttribute(value));
  return list;
};

/** A plain object as an attribute map: undefined and function members left out, as `marshall` does. */
export const toAttributeMap = (item: Readonly<Record<string, unknown>>): Record<string, AttributeValue> => {
  const map: Record<string, AttributeValue> = {};
  for (const name in item) {
    const value = item[name];
    if (value !== undefined && typeof value !== 'function') map[name] = toAttribute(value);
  }
  return map;
};
