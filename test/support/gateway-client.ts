export interface HttpResult {
  readonly status: number;
  readonly headers: Headers;
  readonly body: any;
  readonly text: string;
}

export interface TestGateway {
  readonly url: string;
  readonly adminKey: string;
  /** A JSON request with the admin key. */
  admin(method: string, path: string, body?: unknown): Promise<HttpResult>;
  /** Any request; `key` goes in `Authorization: Bearer` unless headers say otherwise. */
  request(
    method: string,
    path: string,
    options?: { key?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<HttpResult>;
  /** An account and a user key on it, made through the admin API; returns the plaintext key. */
  createAccountWithKey(
    account?: Record<string, unknown>,
    key?: Record<string, unknown>,
  ): Promise<{ account: any; key: string; keyId: string }>;
  close(): Promise<void>;
}

const send = async (
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<HttpResult> => {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: response.headers, body: parsed, text };
};

/** Told of every admin call and its answer (to learn what a test created). */
export type AdminObserver = (method: string, path: string, result: HttpResult) => void;

/** A client of the gateway at `url`, acting as admin with `adminKey`; `close` is what ends it. */
export const gatewayClient = (
  url: string,
  adminKey: string,
  close: () => Promise<void>,
  observe?: AdminObserver,
  accountName = 'test account',
): TestGateway => {
  const request: TestGateway['request'] = (method, path, requestOptions = {}) =>
    send(
      `${url}${path}`,
      method,
      {
        ...(requestOptions.key ? { authorization: `Bearer ${requestOptions.key}` } : {}),
        ...requestOptions.headers,
      },
      requestOptions.body,
    );
  const admin: TestGateway['admin'] = async (method, path, body) => {
    const result = await request(method, path, { key: adminKey, body });
    observe?.(method.toUpperCase(), path, result);
    return result;
  };
  return {
    url,
    adminKey,
    admin,
    request,
    createAccountWithKey: async (account = {}, key = {}) => {
      const created = await admin('POST', '/admin/v1/accounts', { name: accountName, ...account });
      if (created.status !== 201) throw new Error(`account creation failed: ${created.text}`);
      const issued = await admin('POST', '/admin/v1/keys', { accountId: created.body.id, ...key });
      if (issued.status !== 201) throw new Error(`key creation failed: ${issued.text}`);
      return { account: created.body, key: issued.body.key, keyId: issued.body.id };
    },
    close,
  };
};
