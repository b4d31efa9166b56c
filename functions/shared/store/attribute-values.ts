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

/**
 * An item's attribute map as the store's JSON protocol takes it, written straight from the item:
 * every request puts a usage record of some twenty members, and building its attribute map first
 * made an object per member only to serialize them all at once. Plain values are written here; an
 * item holding anything else takes `storeJson(toAttributeMap(item))`, which this always equals.
 */
export const attributeMapJson = (item: Readonly<Record<string, unknown>>): string =>
  mapJson(item) ?? storeJson(toAttributeMap(item));

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

/**
 * Member names as JSON text, kept: the items a process writes share their members' names, and quoting
 * each name anew made a string per member of every record. Bounded, since a map member (a model's
 * settings, say) may hold names of an admin's choosing.
 */
const quotedNames = new Map<string, string>();
const QUOTED_NAMES_KEPT = 1024;
const quotedName = (name: string): string => {
  let quoted = quotedNames.get(name);
  if (quoted === undefined) {
    quoted = JSON.stringify(name);
    if (quotedNames.size < QUOTED_NAMES_KEPT) quotedNames.set(name, quoted);
  }
  return quoted;
};

/**
 * Writes a plain value's attribute value as JSON text into `parts`; false for a value the general
 * path must take (what was written is then dropped). The text is made of the parts in one join: the
 * pieces are constants, quoted names and the values' own text, where building each member's text of
 * its own made some five strings per member, every record.
 */
const writeAttribute = (parts: string[], value: unknown): boolean => {
  switch (typeof value) {
    case 'string':
      parts.push('{"S":', jsonString(value), '}');
      return true;
    case 'number':
      if (!isPlainNumber(value)) return false;
      parts.push('{"N":"', String(value), '"}');
      return true;
    case 'boolean':
      parts.push(value ? '{"BOOL":true}' : '{"BOOL":false}');
      return true;
    case 'object': {
      if (value === null) {
        parts.push('{"NULL":true}');
        return true;
      }
      const list = Array.isArray(value);
      if (!list && !isPlainObject(value)) return false;
      parts.push(list ? '{"L":' : '{"M":');
      if (!(list ? writeList(parts, value) : writeMap(parts, value as Record<string, unknown>))) return false;
      parts.push('}');
      return true;
    }
    default:
      return false;
  }
};

/**
 * Members in `for…in` order, the order of the map `toAttributeMap` builds. The text is one flat string
 * (a join), not a tree of pieces (`+=`): a record's text waits for its batch (a linger and a call), and
 * a tree three to four times its size outlived young collections with it and was copied by each.
 */
const writeMap = (parts: string[], item: Readonly<Record<string, unknown>>): boolean => {
  parts.push('{');
  let separator = '';
  for (const name in item) {
    const value = item[name];
    if (isLeftOut(value)) continue;
    // `toAttributeMap` assigns a __proto__ member, which sets its map's prototype: left to it.
    if (name === '__proto__') return false;
    parts.push(separator, quotedName(name), ':');
    separator = ',';
    if (!writeAttribute(parts, value)) return false;
  }
  parts.push('}');
  return true;
};

const writeList = (parts: string[], values: readonly unknown[]): boolean => {
  parts.push('[');
  let separator = '';
  for (const value of values) {
    if (isLeftOut(value)) continue;
    parts.push(separator);
    separator = ',';
    if (!writeAttribute(parts, value)) return false;
  }
  parts.push(']');
  return true;
};

/** A plain object's attribute map as JSON, or undefined for an item the general path must take. */
const mapJson = (item: Readonly<Record<string, unknown>>): string | undefined => {
  const parts: string[] = [];
  return writeMap(parts, item) ? parts.join('') : undefined;
};
