import { toAttributeMap } from './attribute-values.js';
import { storeJson } from './operations.js';

/**
 * An item's attribute map as the store's JSON protocol takes it, written straight from the item:
 * every request puts a usage record of some twenty members, and building its attribute map first
 * made an object per member only to serialize them all at once. Plain values (strings, numbers a
 * double holds exactly, booleans, null, lists and plain objects of those) are written here; an item
 * holding anything else takes `storeJson(toAttributeMap(item))`, which this always equals
 * (`test/unit/attribute-map-json.test.ts`).
 */
export const attributeMapJson = (item: Readonly<Record<string, unknown>>): string =>
  mapJson(item) ?? storeJson(toAttributeMap(item));

/** A plain value's attribute value as JSON, or undefined for a value the general path must take. */
const attributeJson = (value: unknown): string | undefined => {
  switch (typeof value) {
    case 'string':
      return `{"S":${JSON.stringify(value)}}`;
    case 'number':
      // As `toAttributeMap` takes a number itself; the rest (unsafe integers, NaN) is util-dynamodb's.
      return Number.isSafeInteger(value) || (Number.isFinite(value) && !Number.isInteger(value))
        ? `{"N":"${String(value)}"}`
        : undefined;
    case 'boolean':
      return value ? '{"BOOL":true}' : '{"BOOL":false}';
    case 'object': {
      if (value === null) return '{"NULL":true}';
      if (Array.isArray(value)) {
        const list = listJson(value);
        return list === undefined ? undefined : `{"L":${list}}`;
      }
      const prototype = Object.getPrototypeOf(value) as unknown;
      if (prototype !== Object.prototype && prototype !== null) return undefined;
      const map = mapJson(value as Record<string, unknown>);
      return map === undefined ? undefined : `{"M":${map}}`;
    }
    default:
      return undefined;
  }
};

/** Members in `for…in` order, the order of the map `toAttributeMap` builds; undefined and functions left out. */
const mapJson = (item: Readonly<Record<string, unknown>>): string | undefined => {
  let text = '';
  for (const name in item) {
    const value = item[name];
    if (value === undefined || typeof value === 'function') continue;
    // A member named __proto__ is whatever the general path makes of it.
    const attribute = name === '__proto__' ? undefined : attributeJson(value);
    if (attribute === undefined) return undefined;
    text += `${text === '' ? '' : ','}${JSON.stringify(name)}:${attribute}`;
  }
  return `{${text}}`;
};

const listJson = (values: readonly unknown[]): string | undefined => {
  let text = '';
  for (const value of values) {
    if (value === undefined || typeof value === 'function') continue;
    const attribute = attributeJson(value);
    if (attribute === undefined) return undefined;
    text += `${text === '' ? '' : ','}${attribute}`;
  }
  return `[${text}]`;
};
