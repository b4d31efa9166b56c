import { nullPrototypeRecord } from '../../http/null-prototype.js';

/**
 * A JSON schema as Gemini's function declarations accept it: Gemini takes an OpenAPI 3 subset and
 * rejects the whole request over a keyword it does not know, so those are dropped, recursively.
 */
const REJECTED = new Set([
  '$schema',
  '$id',
  '$ref',
  '$defs',
  '$comment',
  'definitions',
  'additionalProperties',
  'default',
  'examples',
  'strict',
  'patternProperties',
  'unevaluatedProperties',
  'dependentRequired',
  'dependentSchemas',
  'if',
  'then',
  'else',
  'not',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'contentEncoding',
  'contentMediaType',
  'readOnly',
  'writeOnly',
  'deprecated',
]);

/** Keywords whose value is a map of names to schemas, not a schema itself. */
const SCHEMA_MAPS = new Set(['properties']);
/** Keywords whose value is a schema or a list of schemas. */
const SCHEMA_VALUES = new Set(['items', 'anyOf', 'oneOf', 'allOf', 'prefixItems']);

export const cleanGeminiSchema = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(cleanGeminiSchema);
  if (schema === null || typeof schema !== 'object') return schema;
  const cleaned = nullPrototypeRecord<unknown>();
  for (const [key, value] of Object.entries(schema)) {
    if (REJECTED.has(key)) continue;
    if (key === 'const') {
      cleaned.enum = [String(value)];
      continue;
    }
    if (SCHEMA_MAPS.has(key) && value && typeof value === 'object' && !Array.isArray(value)) {
      cleaned[key] = Object.fromEntries(
        Object.entries(value).map(([name, property]) => [name, cleanGeminiSchema(property)]),
      );
    } else if (SCHEMA_VALUES.has(key)) {
      cleaned[key] = cleanGeminiSchema(value);
    } else if (key === 'type' && Array.isArray(value)) {
      // `["string", "null"]` is JSON Schema's nullable; Gemini wants one type and `nullable`.
      const types = value.filter((type) => type !== 'null');
      cleaned.type = types[0] ?? 'string';
      if (types.length < value.length) cleaned.nullable = true;
    } else {
      cleaned[key] = value;
    }
  }
  // An enum must be of strings for Gemini.
  if (Array.isArray(cleaned.enum)) cleaned.enum = cleaned.enum.map(String);
  return cleaned;
};
