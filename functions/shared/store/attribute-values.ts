import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { convertToAttr } from '@aws-sdk/util-dynamodb';
import { MARSHALL_OPTIONS } from './marshall-options.js';
import { storeJson } from './operations.js';

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

/** A number written as it stands; util-dynamodb's refusals (NaN, infinities, unsafe integers) are its own. */
const isPlainNumber = (value: number): boolean =>
  Number.isSafeInteger(value) || (Number.isFinite(value) && !Number.isInteger(value));

/** Members and elements `marshall` leaves out. */
const isLeftOut = (value: unknown) => value === undefined || typeof value === 'function';

/** One value's attribute value, as `marshall` with the store's options gives it; it throws where that refuses. */
export const toAttribute = (value: unknown): AttributeValue => {
  switch (typeof value) {
    case 'string':
      return { S: value };
    case 'number':
      if (isPlainNumber(value)) return { N: String(value) };
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
  for (const value of values) if (!isLeftOut(value)) list.push(toAttribute(value));
  return list;
};

/** A plain object as an attribute map: undefined and function members left out, as `marshall` does. */
export const toAttributeMap = (item: Readonly<Record<string, unknown>>): Record<string, AttributeValue> => {
  const map: Record<string, AttributeValue> = {};
  for (const name in item) {
    const value = item[name];
    if (!isLeftOut(value)) map[name] = toAttribute(value);
  }
  return map;
};

/** Text JSON writes as it stands between quotes: printable ASCII but the quote and the backslash. */
const PLAIN_TEXT = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/**
 * A string as JSON text. The ids, names and times of a record need no escaping: quoted as they stand,
 * they skip `JSON.stringify`'s call into the runtime, half the cost of writing a usage record.
 */
const jsonString = (text: string): string => (PLAIN_TEXT.test(text) ? `"${text}"` : JSON.stringify(text));

/**
 * One plain value's attribute value as JSON text, the same as `storeJson(toAttribute(value))`, and
 * throwing where that throws (a number `marshall` refuses): for items written member by member.
 */
export const attributeJson = (value: string | number | boolean | null): string => {
  if (typeof value === 'string') return `{"S":${jsonString(value)}}`;
  if (typeof value === 'number' && isPlainNumber(value)) return `{"N":"${value}"}`;
  if (typeof value === 'boolean') return value ? '{"BOOL":true}' : '{"BOOL":false}';
  if (value === null) return '{"NULL":true}';
  return storeJson(toAttribute(value));
};
