import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { containerCredentialsEndpoint, functionCredentials } from '../../functions/shared/aws/function-credentials.js';
import { redactSecrets } from '../../functions/shared/security/redact-secrets.js';
import { waitFor } from '../support/wait-for.js';

/**
 * A function's credentials from its environment, or from a credentials endpoint as Lambda serves
 * them where an environment outlives its credentials: a real local HTTP endpoint stands in for
 * Lambda's, and says how often and with what it was asked.
 */

interface Endpoint {
  readonly url: string;
  readonly requests: IncomingMessage[];
  /** The next answers: status and body (or a dropped connection); when none is left, fresh credentials valid for an hour. */
  readonly answers: ({ status: number; body: unknown } | 'drop' | 'silent')[];
  /** Answers wait for this, when set: to hold concurrent fetches in flight. */
  gate?: Promise<void>;
  close(): Promise<void>;
}

let issued = 0;
const freshCredentials = (validForMs = 3_600_000) => {
  issued += 1;
  return {
    AccessKeyId: `ASIAENDPOINT${issued}`,
    SecretAccessKey: `endpoint-secret-${issued}-${Math.random().toString(36).slice(2)}`,
    Token: `endpoint-token-${issued}-${Math.random().toString(36).slice(2)}`,
    Expiration: new Date(Date.now() + validForMs).toISOString(),
  };
};

const startEndpoint = async (): Promise<Endpoint> => {
  const endpoint: Endpoint = {
    url: '',
    requests: [],
    answers: [],
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  const server: Server = createServer((request, response) => {
    endpoint.requests.push(request);
    void (endpoint.gate ?? Promise.resolve()).then(() => {
      const answer = endpoint.answers.shift() ?? { status: 200, body: freshCredentials() };
      if (answer === 'drop') return void request.socket.destroy();
      if (answer === 'silent') return;
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  (endpoint as { url: string }).url =
    `http://127.0.0.1:${(server.address() as AddressInfo).port}/2018-06-01/credentials`;
  return endpoint;
};

let endpoint: Endpoint;

beforeEach(async () => {
  endpoint = await startEndpoint();
});

afterEach(async () => {
  await endpoint.close();
});

describe('a function’s credentials', () => {
  test('come from the environment’s access keys when it has them, with its session token', async () => {
    const provider = functionCredentials({
      AWS_ACCESS_KEY_ID: 'AKIDENV',
      AWS_SECRET_ACCESS_KEY: 'env-secret',
      AWS_SESSION_TOKEN: 'env-token',
      AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url,
    });
    expect(await provider!()).toEqual({
      accessKeyId: 'AKIDENV',
      secretAccessKey: 'env-secret',
      sessionToken: 'env-token',
    });
    expect(endpoint.requests).toHaveLength(0);
  });

  test('come from the credentials endpoint otherwise, asked with the environment’s token', async () => {
    const provider = functionCredentials({
      AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url,
      AWS_CONTAINER_AUTHORIZATION_TOKEN: 'lambda-token',
    });
    const credentials = await provider!();
    expect(credentials).toMatchObject({
      accessKeyId: expect.stringMatching(/^ASIAENDPOINT/),
      secretAccessKey: expect.stringMatching(/^endpoint-secret-/),
      sessionToken: expect.stringMatching(/^endpoint-token-/),
      expiration: expect.any(Date),
    });
    expect(endpoint.requests).toHaveLength(1);
    expect(endpoint.requests[0]!.headers.authorization).toBe('lambda-token');
    expect(endpoint.requests[0]!.url).toBe('/2018-06-01/credentials');
  });

  test('are kept while valid', async () => {
    endpoint.answers.push({ status: 200, body: freshCredentials(60 * 60_000) });
    const provider = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url })!;
    const first = await provider();
    expect(await provider()).toBe(first);
    expect(endpoint.requests).toHaveLength(1);
  });

  test('are fetched once for calls that ask at the same time', async () => {
    let open = () => {};
    endpoint.gate = new Promise((resolve) => {
      open = resolve;
    });
    const provider = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url })!;
    const asked = Promise.all([provider(), provider(), provider()]);
    await new Promise<void>((resolve) => {
      const check = () => (endpoint.requests.length > 0 ? resolve() : setImmediate(check));
      check();
    });
    open();
    const [one, two, three] = await asked;
    expect(one).toBe(two);
    expect(two).toBe(three);
    expect(endpoint.requests).toHaveLength(1);
  });

  test('read the token from the file the environment names, as it is rotated', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'credentials-token-'));
    const file = path.join(directory, 'token');
    try {
      await writeFile(file, 'file-token-1\n');
      const environment = {
        AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url,
        AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: file,
      };
      endpoint.answers.push({ status: 200, body: freshCredentials(60_000) });
      const provider = functionCredentials(environment)!;
      await provider();
      await writeFile(file, 'file-token-2\n');
      await provider();
      await waitFor(() => endpoint.requests.length === 2);
      expect(endpoint.requests.map((request) => request.headers.authorization)).toEqual([
        'file-token-1',
        'file-token-2',
      ]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  test('are tried again when a fetch fails, and a call fails with the last error only when every try did', async () => {
    endpoint.answers.push({ status: 500, body: { message: 'busy' } }, 'drop');
    const provider = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url })!;
    await expect(provider()).resolves.toMatchObject({ accessKeyId: expect.stringMatching(/^ASIAENDPOINT/) });
    expect(endpoint.requests).toHaveLength(3);

    const failing = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url })!;
    endpoint.answers.push({ status: 500, body: { message: 'busy' } }, 'drop', {
      status: 200,
      body: { Code: 'Success' },
    });
    await expect(failing()).rejects.toThrow('without credentials');
    await expect(failing()).resolves.toMatchObject({ accessKeyId: expect.stringMatching(/^ASIAENDPOINT/) });
    expect(endpoint.requests).toHaveLength(7);
  });

  test('give up on an endpoint that never answers after a short timeout, and try again', async () => {
    endpoint.answers.push('silent');
    const provider = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url }, { timeoutMs: 50 })!;
    await expect(provider()).resolves.toMatchObject({ accessKeyId: expect.stringMatching(/^ASIAENDPOINT/) });
    expect(endpoint.requests).toHaveLength(2);
  });

  test('about to expire, are handed out at once while new ones are fetched in the background', async () => {
    endpoint.answers.push({ status: 200, body: freshCredentials(2 * 60_000) });
    // The refresh is held until this test has seen it arrive: on a loaded host that can outlast the
    // default fetch timeout, and a refresh that timed out would leave the old credentials in use.
    const provider = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url }, { timeoutMs: 60_000 })!;
    const expiring = await provider();
    let open = () => {};
    endpoint.gate = new Promise((resolve) => {
      open = resolve;
    });
    // The refresh is held at the endpoint: the call cannot have waited for it.
    expect(await provider()).toBe(expiring);
    await waitFor(() => endpoint.requests.length === 2);
    open();
    await waitFor(async () => (await provider()) !== expiring);
    expect((await provider()).accessKeyId).not.toBe(expiring.accessKeyId);
    expect(endpoint.requests).toHaveLength(2);
  });

  test('still valid, are kept when their refresh fails', async () => {
    endpoint.answers.push({ status: 200, body: freshCredentials(2 * 60_000) });
    const provider = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url })!;
    const expiring = await provider();
    for (let attempt = 0; attempt < 3; attempt += 1) endpoint.answers.push({ status: 500, body: { message: 'busy' } });
    expect(await provider()).toBe(expiring);
    await waitFor(() => endpoint.requests.length === 4);
    // The failed refresh is over once its last answer is read; the next call still has credentials.
    await expect(provider()).resolves.toBe(expiring);
    await expect(provider()).resolves.toBe(expiring);
  });

  test('too close to their expiry, are not handed out: the call waits for new ones', async () => {
    endpoint.answers.push({ status: 200, body: freshCredentials(5_000) });
    const provider = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url })!;
    const expired = await provider();
    expect((await provider()).accessKeyId).not.toBe(expired.accessKeyId);
    expect(endpoint.requests).toHaveLength(2);
  });

  test('come from the relative URI when both are set, on the agents’ address, as the SDK reads them', () => {
    expect(
      containerCredentialsEndpoint({
        AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/credentials/id',
        AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url,
      })?.href,
    ).toBe('http://169.254.170.2/v2/credentials/id');
    // A relative URI is a path there, never another host.
    expect(containerCredentialsEndpoint({ AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '//example.com/x' })?.host).toBe(
      '169.254.170.2',
    );
    expect(containerCredentialsEndpoint({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url })?.href).toBe(endpoint.url);
  });

  test('prefer the token file to the token, as the SDK does, and refuse a token that would break its header', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'credentials-token-'));
    const file = path.join(directory, 'token');
    try {
      await writeFile(file, 'from-the-file\n');
      const provider = functionCredentials({
        AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url,
        AWS_CONTAINER_AUTHORIZATION_TOKEN: 'from-the-variable',
        AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: file,
      })!;
      await provider();
      expect(endpoint.requests.map((request) => request.headers.authorization)).toEqual(['from-the-file']);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
    const broken = functionCredentials({
      AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url,
      AWS_CONTAINER_AUTHORIZATION_TOKEN: 'token\r\nx-injected: yes',
    })!;
    await expect(broken()).rejects.toThrow('line break');
    expect(endpoint.requests).toHaveLength(1);
  });

  test('once fetched, are removed from every text the redactor cleans', async () => {
    const provider = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url })!;
    const { secretAccessKey, sessionToken } = await provider();
    const text = redactSecrets(`signed with ${secretAccessKey} and ${sessionToken}`);
    expect(text).not.toContain(secretAccessKey);
    expect(text).not.toContain(sessionToken);
  });

  test('are never asked of an endpoint that is not local', async () => {
    for (const url of ['http://169.254.169.254/latest', 'http://example.com/credentials', 'https://example.com/c']) {
      const provider = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: url })!;
      await expect(provider()).rejects.toThrow(/local HTTP/);
    }
    expect(functionCredentials({ AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: '/v2/credentials/id' })).toEqual(
      expect.any(Function),
    );
  });

  test('are absent when the environment has neither', () => {
    expect(functionCredentials({ AWS_ACCESS_KEY_ID: 'AKIDONLY' })).toBeUndefined();
    expect(functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: 'not a url' })).toBeUndefined();
    expect(functionCredentials({})).toBeUndefined();
  });
});
