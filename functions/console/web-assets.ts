import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { notFound } from '../shared/errors.js';
import type { GatewayResponse } from '../shared/http/response.js';

/**
 * The page's security headers. The app is one script and one stylesheet from this origin; it talks
 * only to this origin; nothing may frame it. No inline script or style is allowed anywhere.
 */
export const consoleSecurityHeaders: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Where the built app lives: `GATEWAY_CONSOLE_WEB_DIR` (the local runtime builds it there at start),
 * else `web/` beside the function's bundle, where the stack's bundling step puts it.
 */
const webDirectory = (): string =>
  process.env.GATEWAY_CONSOLE_WEB_DIR ?? path.join(path.dirname(fileURLToPath(import.meta.url)), 'web');

type Assets = ReadonlyMap<string, string>;

let loading: Promise<Assets> | undefined;
let loadedFrom: string | undefined;

/** Every file of the app, read once per process (a few tens of KB). */
const loadAssets = (): Promise<Assets> => {
  const directory = webDirectory();
  if (!loading || loadedFrom !== directory) {
    loadedFrom = directory;
    loading = readdir(directory).then(async (names) => {
      const entries = await Promise.all(
        names
          .filter((name) => path.extname(name) in contentTypes)
          .map(async (name) => [name, await readFile(path.join(directory, name), 'utf8')] as const),
      );
      return new Map(entries);
    });
    loading.catch(() => {
      loading = undefined;
    });
  }
  return loading;
};

/**
 * One file of the app. `/console` and `/console/` are the page; the script and stylesheet carry a
 * content hash in their names, so they may be cached for good, while the page is always revalidated.
 */
export const webAsset = async (name: string | undefined): Promise<GatewayResponse> => {
  const file = !name || name === 'index.html' ? 'index.html' : name;
  const body = (await loadAssets()).get(file);
  if (body === undefined || !/^[\w.-]+$/.test(file))
    throw notFound(`The console has no file '${file}'.`, 'unknown_url');
  const immutable = file !== 'index.html';
  return {
    statusCode: 200,
    headers: {
      'content-type': contentTypes[path.extname(file)]!,
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      ...consoleSecurityHeaders,
    },
    body,
  };
};

export const redirect = (location: string): GatewayResponse => ({
  statusCode: 302,
  headers: { location, 'cache-control': 'no-cache' },
  body: '',
});
