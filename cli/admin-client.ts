import { MAX_PAGE_SIZE, readAllPages, type ListPage } from '../functions/admin/read-all-pages.js';

/** A failure the CLI reports in one line and exits on, without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

export interface AdminClient {
  request(method: string, path: string, body?: unknown): Promise<any>;
}

const describeNetworkError = (url: string, error: unknown): string => {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (error as { code?: string }).code;
  const reason =
    code === 'ECONNREFUSED'
      ? 'connection refused: is the gateway running there?'
      : code === 'ENOTFOUND'
        ? 'host not found'
        : (code ?? cause?.message ?? (error as Error).message);
  return `Cannot reach the gateway at ${url} (${reason}).`;
};

/** Calls the admin API; turns every failure into a CliError with what the operator can act on. */
export const adminClient = (baseUrl: string, adminKey: string): AdminClient => {
  let origin: string;
  try {
    const parsed = new URL(baseUrl);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
    origin = baseUrl.replace(/\/+$/, '');
  } catch {
    throw new CliError(`The gateway URL '${baseUrl}' is not an http(s) URL.`, 2);
  }
  return {
    async request(method, path, body) {
      let response: Response;
      try {
        response = await fetch(`${origin}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${adminKey}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        throw new CliError(describeNetworkError(origin, error));
      }
      const text = await response.text();
      let payload: any;
      try {
        payload = text ? JSON.parse(text) : undefined;
      } catch {
        payload = undefined;
      }
      if (response.ok) return payload;
      const error = payload?.error ?? {};
      const detail = `${response.status}${error.code ? ` ${error.code}` : ''}: ${error.message ?? (text.slice(0, 200) || response.statusText)}`;
      if (response.status === 401)
        throw new CliError(`The admin key was refused (${detail}). Check --key or GATEWAY_ADMIN_KEY.`);
      if (response.status === 403) throw new CliError(`The key is not allowed to use the admin API (${detail}).`);
      if (response.status === 404 && error.code === 'unknown_url') {
        throw new CliError(`${origin} does not serve ${method} ${path}: is --url the gateway's base URL? (${detail})`);
      }
      throw new CliError(`${method} ${path} failed (${detail}${error.param ? `, param ${error.param}` : ''}).`);
    },
  };
};

/** A whole admin list, read a page at a time (`readAllPages`). */
export const listAll = (client: AdminClient, path: string, pageSize = MAX_PAGE_SIZE): Promise<{ data: unknown[] }> =>
  readAllPages(path, (pagePath) => client.request('GET', pagePath) as Promise<ListPage<unknown>>, pageSize);
