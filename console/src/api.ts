import { readAllPages, type ListPage } from '../../functions/admin/read-all-pages.js';

/**
 * The console's calls to its own origin. The session token lives in sessionStorage (this tab only)
 * and travels in the Authorization header, never in a cookie: another site cannot make the browser
 * send it.
 */
const TOKEN = 'model-gateway.session';

export interface ConsoleUser {
  readonly id: string;
  readonly accountId: string;
  readonly role: 'member' | 'account-admin' | 'admin';
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message);
  }
}

export const session = {
  get token(): string | null {
    return sessionStorage.getItem(TOKEN);
  },
  set(token: string): void {
    sessionStorage.setItem(TOKEN, token);
  },
  clear(): void {
    sessionStorage.removeItem(TOKEN);
  },
};

/** Called when the server says the session is over. */
let onSignedOut: () => void = () => undefined;
export const whenSignedOut = (handler: () => void): void => {
  onSignedOut = handler;
};

/** Console and admin paths are both under this page's origin (`<base>/console/...`, `<base>/admin/v1/...`). */
export const apiBase = (): string => location.pathname.replace(/\/console\/?.*$/, '');

export const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
  const headers: Record<string, string> = {};
  if (session.token) headers.authorization = `Bearer ${session.token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${apiBase()}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
  });
  const payload = (await response.json().catch(() => ({}))) as { error?: { message?: string; code?: string | null } };
  if (!response.ok) {
    if (response.status === 401 && path !== '/console/api/session') {
      session.clear();
      onSignedOut();
    }
    throw new ApiError(
      payload.error?.message ?? `HTTP ${response.status}`,
      response.status,
      payload.error?.code ?? null,
    );
  }
  return payload as T;
};

/**
 * Ends a session on the server (`DELETE /console/api/session`) with the token it was given; the
 * call outlives a page load (`keepalive`). A failure is left as it is: the session expires anyway.
 */
export const endSession = (token: string): Promise<void> =>
  fetch(`${apiBase()}/console/api/session`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${token}` },
    credentials: 'omit',
    keepalive: true,
  }).then(
    () => undefined,
    () => undefined,
  );

export const query = (parameters: Record<string, string | number | undefined>): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters))
    if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
};

/** A whole admin list, a page at a time (`readAllPages`). */
export const callList = <T>(path: string): Promise<{ data: T[] }> =>
  readAllPages(path, (pagePath) => call<ListPage<T>>('GET', pagePath));
