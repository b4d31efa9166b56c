import { invalidJson, payloadTooLarge } from '../errors.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../http/json-depth.js';
import type { GatewayMiddyRequest } from './gateway-context.js';
import { parseJson } from '../http/parse-json.js';

/** API Gateway's own limit, applied locally too so that both behave alike. */
export const MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface JsonBodyOptions {
  /** Whether a request without a body is an error (POST endpoints) or simply has none (GET). */
  readonly required: boolean;
  readonly maxBytes?: number;
}

/**
 * Parses the JSON body: 413 past the size limit, 400 `invalid_json` when it is not a JSON object or
 * nests deeper than the limit.
 */
export const jsonBody = (options: JsonBodyOptions) => {
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;

  const jsonBodyBefore = (request: GatewayMiddyRequest): void => {
    const { event } = request;
    const raw = event.body ?? '';
    if (raw.length === 0) {
      if (options.required) throw invalidJson('the body is empty; send a JSON object.');
      return;
    }
    const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
    if (Buffer.byteLength(text, 'utf8') > maxBytes) throw payloadTooLarge(maxBytes);
    let parsed: unknown;
    try {
      parsed = parseJson(text);
    } catch (error) {
      throw invalidJson((error as Error).message);
    }
    // Refused before anything walks the body: everything after the parser walks it recursively.
    if (exceedsJsonDepth(parsed))
      throw invalidJson(`arrays and objects are nested deeper than ${MAX_JSON_DEPTH} levels.`);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw invalidJson('the body must be a JSON object.');
    }
    request.context.gateway.body = parsed;
  };
  return { before: jsonBodyBefore };
};
