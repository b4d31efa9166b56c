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
const isPlainNumber = (value: number) =>
  Number.isSafeInteger(value) || (Number.isFinite(value) && !Number.isInteger(value));

/** Members and elements `marshall` leaves out. */
const isLeftOut = (value: unknown) => value === undefined || typeof value === 'function';

const toAttribute = (value: unknown): AttributeValue => {
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

/**
 * An item's attribute map as the store's JSON protocol takes it, written straight from the item:
 * every request puts a usage record of some twenty members, and building its attribute map first
 * made an object per member only to serialize them all at once. Plain values are written here; an
 * item holding anything else takes `storeJson(toAttributeMap(item))`, which this always equals.
 */
export const attributeMapJson = (item: Readonly<Record<string, unknown>>): string =>
  mapJson(item) ?? storeJson(toAttributeMap(item));

/** A plain value's attribute value as JSON, or undefined for a value the general path must take. */
const attributeJson = (value: unknown): string | undefined => {
  switch (typeof value) {
    case 'string':
      return `{"S":${JSON.stringify(value)}}`;
    case 'number':
      return isPlainNumber(value) ? `{"N":"${String(value)}"}` : undefined;
    case 'boolean':
      return value ? '{"BOOL":true}' : '{"BOOL":false}';
    case 'object': {
      if (value === null) return '{"NULL":true}';
      const inner = Array.isArray(value) ? listJson(value) : isPlainObject(value) ? mapJson(value) : undefined;
      return inner === undefined ? undefined : `{"${Array.isArray(value) ? 'L' : 'M'}":${inner}}`;
    }
    default:
      return undefined;
  }
};

/**
 * Members in `for…in` order, the order of the map `toAttributeMap` builds. Joined from parts, not
 * added up: `+=` makes a tree of string pieces that stays a tree until read, and a record's text waits
 * for its batch (a linger and a call) with it: under load that tree, three to four times the text's
 * size, outlived young collections and was copied by each. A join writes one flat string.
 */
const mapJson = (item: Readonly<Record<string, unknown>>): string | undefined => {
  const members: string[] = [];
  for (const name in item) {
    const value = item[name];
    if (isLeftOut(value)) continue;
    // `toAttributeMap` assigns a __proto__ member, which sets its map's prototype: left to it.
    const attribute = name === '__proto__' ? undefined : attributeJson(value);
    if (attribute === undefined) return undefined;
    members.push(`${JSON.stringify(name)}:${attribute}`);
  }
  return `{${members.join(',')}}`;
};

const listJson = (values: readonly unknown[]): string | undefined => {
  const elements: string[] = [];
  for (const value of values) {
    if (isLeftOut(value)) continue;
    const attribute = attributeJson(value);
    if (attribute === undefined) return undefined;
    elements.push(attribute);
  }
  return `[${elements.join(',')}]`;
};
