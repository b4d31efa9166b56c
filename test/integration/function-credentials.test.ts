import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { functionCredentials } from '../../functions/shared/aws/function-credentials.js';

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
    SecretAccessKey: `secret-${issued}`,
    Token: `token-${issued}`,
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
      secretAccessKey: expect.stringMatching(/^secret-/),
      sessionToken: expect.stringMatching(/^token-/),
      expiration: expect.any(Date),
    });
    expect(endpoint.requests).toHaveLength(1);
    expect(endpoint.requests[0]!.headers.authorization).toBe('lambda-token');
    expect(endpoint.requests[0]!.url).toBe('/2018-06-01/credentials');
  });

  test('are kept while valid, and fetched again shortly before they expire', async () => {
    endpoint.answers.push({ status: 200, body: freshCredentials(60 * 60_000) });
    const provider = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url })!;
    const first = await provider();
    expect(await provider()).toBe(first);
    expect(endpoint.requests).toHaveLength(1);

    const soon = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url })!;
    endpoint.answers.push({ status: 200, body: freshCredentials(2 * 60_000) });
    const expiring = await soon();
    const renewed = await soon();
    expect(renewed.accessKeyId).not.toBe(expiring.accessKeyId);
    expect(endpoint.requests).toHaveLength(3);
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
      expect(endpoint.requests.map((request) => request.headers.authorization)).toEqual([
        'file-token-1',
        'file-token-2',
      ]);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  test('fail the call with what went wrong, and are asked for again by the next', async () => {
    endpoint.answers.push({ status: 500, body: { message: 'busy' } });
    endpoint.answers.push({ status: 200, body: { Code: 'Success' } });
    endpoint.answers.push('drop');
    const provider = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url })!;
    await expect(provider()).rejects.toThrow('answered 500');
    await expect(provider()).rejects.toThrow('without credentials');
    await expect(provider()).rejects.toThrow(/socket hang up|ECONNRESET/);
    await expect(provider()).resolves.toMatchObject({ accessKeyId: expect.stringMatching(/^ASIAENDPOINT/) });
    expect(endpoint.requests).toHaveLength(4);
  });

  test('fail the call when the endpoint never answers, and are asked for again by the next', async () => {
    endpoint.answers.push('silent');
    const provider = functionCredentials({ AWS_CONTAINER_CREDENTIALS_FULL_URI: endpoint.url })!;
    await expect(provider()).rejects.toThrow('did not answer');
    await expect(provider()).resolves.toMatchObject({ accessKeyId: expect.stringMatching(/^ASIAENDPOINT/) });
    expect(endpoint.requests).toHaveLength(2);
  }, 15_000);

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
