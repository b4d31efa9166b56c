import type { ClientOptions } from '../client-options.js';

/** A beta or version name as Anthropic spells them (`interleaved-thinking-2025-05-14`, `2023-06-01`). */
const FEATURE_NAME = /^[a-z0-9][a-z0-9._-]{0,99}$/;
const VERSION = /^\d{4}-\d{2}-\d{2}$/;
/** More betas than any client sends: a hostile header cannot grow the upstream request without bound. */
const MAX_BETAS = 32;

/** Every value of a header that may be repeated: API Gateway keeps only the last one in `headers`. */
const headerValues = (
  headers: Readonly<Record<string, string>>,
  multiValueHeaders: Readonly<Record<string, readonly string[] | undefined>> | null | undefined,
  name: string,
): string[] => {
  const repeated = Object.entries(multiValueHeaders ?? {})
    .filter(([key]) => key.toLowerCase() === name)
    .flatMap(([, values]) => values ?? []);
  return repeated.length > 0 ? repeated : headers[name] !== undefined ? [headers[name]] : [];
};

/**
 * What a Messages client opted into through its headers: `anthropic-beta` (comma-separated, possibly
 * repeated) and `anthropic-version`. A name that is not well-formed is dropped here rather than
 * forwarded, so nothing but plain feature names reaches an upstream's headers.
 */
export const anthropicClientOptions = (
  headers: Readonly<Record<string, string>>,
  multiValueHeaders?: Readonly<Record<string, readonly string[] | undefined>> | null,
): ClientOptions => {
  const betas = new Set<string>();
  for (const name of headerValues(headers, multiValueHeaders, 'anthropic-beta').join(',').split(',')) {
    const trimmed = name.trim().toLowerCase();
    if (FEATURE_NAME.test(trimmed) && betas.size < MAX_BETAS) betas.add(trimmed);
  }
  const version = headers['anthropic-version']?.trim();
  return { betas: [...betas], ...(version && VERSION.test(version) ? { version } : {}) };
};
