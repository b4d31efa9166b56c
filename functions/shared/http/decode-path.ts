import { invalidValue } from '../errors.js';

/**
 * Decodes a percent-encoded path or path segment. Malformed encoding (`%zz`, a cut-off or invalid
 * UTF-8 sequence) is the client's mistake: a 400, not the URIError that `decodeURIComponent` throws.
 */
export const decodePath = (encoded: string): string => {
  try {
    return decodeURIComponent(encoded);
  } catch {
    throw invalidValue(
      'The request path holds malformed percent-encoding (such as "%zz" or a cut-off UTF-8 sequence).',
      null,
    );
  }
};
