import { once } from 'node:events';
import { setTimeout as elapsed } from 'node:timers/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '@smithy/core/checksum';
import { resetStore, store } from '../support/sdk-store.js';
import {
  storeConnection,
  storeRequestHandler,
  type SignedConnection,
} from '../../functions/shared/store/connection.js';
import { StoreHttpHandler } from '../../functions/shared/store/store-http.js';
import { bodyText } from '../../functions/shared/http/client/response-body.js';
import { getItem } from '../../functions/shared/store/documents.js';
import {
  sendOperation,
  sendSigned,
  StoreServiceError,
  THROTTLING_RETRIED_HERE,
} from '../../functions/shared/store/operations.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { ensureTables, startEmbeddedStore, type EmbeddedStore } from '../../infra/local/embedded-store.js';
import { onStoreRequests } from '../support/store-wire.js';

/**
 * The store's calls against DynamoDB's wire format: an HTTP endpoint that records what arrives and
 * answers as DynamoDB does, and the embedded engine for the round trips. The SDK's own client, sent
 * the same operation, is the reference for what a request must carry.
 */

const ENVIRONMENT = [
  'DYNAMODB_ENDPOINT',
  'AWS_LAMBDA_FUNCTION_NAME',
  'AWS_USE_FIPS_ENDPOINT',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
];
const saved = Object.fromEntries(ENVIRONMENT.map((name) => [name, process.env[name]]));
const CREDENTIALS = {
  accessKeyId: 'AKIDSTORETEST',
  secretAccessKey: 'store-test-secret',
  sessionToken: 'store-session',
};

const useEnvironment = (values: Record<string, string | undefined>) => {
  for (const name of ENVIRONMENT) {
    const value = values[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  resetStore();
};

afterAll(() => useEnvironment(saved));

const signedConnection = async () => {
  const connection = await storeConnection();
  if (connection.kind !== 'signed') throw new Error(`a ${connection.kind} connection`);
  return connection;
};

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  /** The client's port: one per connection. */
  readonly clientPort: number;
}

/** An endpoint that records each request and answers with the next scripted answer (else `{}`). */
const startEndpoint = async () => {
  const received: Received[] = [];
  /**
   * `cut`: the connection is closed mid-answer, after its head and part of its body. `silent`: nothing
   * is answered at all (a peer that vanished). `stalled`: the head and part of the body, then nothing.
   */
  const answers: {
    status: number;
    body: string;
    contentType?: string;
    headers?: Record<string, string>;
    cut?: boolean;
    silent?: boolean;
    stalled?: boolean;
  }[] = [];
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method!,
        url: request.url!,
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        clientPort: request.socket.remotePort!,
      });
      const answer = answers.shift() ?? { status: 200, body: '{}' };
      if (answer.silent) return;
      response.writeHead(answer.status, {
        'content-type': answer.contentType ?? 'application/x-amz-json-1.0',
        'x-amzn-requestid': `request-${received.length}`,
        ...answer.headers,
      });
      if (answer.cut) response.write(answer.body, () => response.socket?.destroy());
      else if (answer.stalled) response.write(answer.body);
      else response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answers,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
};

type Endpoint = Awaited<ReturnType<typeof startEndpoint>>;

/** The signed header names of a request's Authorization header. */
const signedHeadersOf = (request: Received) =>
  /SignedHeaders=([^,]+)/.exec(String(request.headers.authorization))![1]!.split(';');

/** What the signature of a received request must be, computed over what arrived. */
const expectedAuthorization = async (request: Received, region: string) => {
  const signed = signedHeadersOf(request);
  const amzDate = String(request.headers['x-amz-date']);
  const signingDate = new Date(
    `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`,
  );
  const headers = Object.fromEntries(signed.map((name) => [name, String(request.headers[name])]));
  const signer = new SignatureV4({ credentials: CREDENTIALS, region, service: 'dynamodb', sha256: Sha256 });
  const verified = await signer.sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: '127.0.0.1',
      path: request.url,
      query: {},
      headers,
      body: request.body,
    },
    { signingDate },
  );
  return verified.headers.authorization;
};

describe('store calls on the wire', () => {
  let endpoint: Endpoint;

  beforeAll(async () => {
    endpoint = await startEndpoint();
    useEnvironment({
      DYNAMODB_ENDPOINT: endpoint.url,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
      AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
    });
  });

  afterAll(async () => {
    resetStore();
    await endpoint.close();
  });

  beforeEach(() => {
    endpoint.received.length = 0;
    endpoint.answers.length = 0;
  });

  const input = {
    TableName: 'counters',
    Key: { id: { S: 'rpm#key#a' } },
    UpdateExpression: 'ADD #count :one',
    ExpressionAttributeNames: { '#count': 'count' },
    ExpressionAttributeValues: { ':one': { N: '1' } },
  };

  test('a call is addressed, typed and signed as the SDK signs the same operation, and its signature holds over what arrived', async () => {
    await sendOperation('UpdateItem', input);
    const sdk = new DynamoDBClient({ endpoint: endpoint.url, region: 'eu-west-1', credentials: CREDENTIALS });
    await sdk.send(new UpdateItemCommand(input));
    sdk.destroy();
    const [direct, reference] = endpoint.received as [Received, Received];

    expect(direct.method).toBe('POST');
    expect(direct.url).toBe('/');
    expect(direct.headers['x-amz-target']).toBe('DynamoDB_20120810.UpdateItem');
    expect(direct.headers['content-type']).toBe('application/x-amz-json-1.0');
    expect(direct.headers['x-amz-security-token']).toBe(CREDENTIALS.sessionToken);
    expect(JSON.parse(direct.body)).toEqual(JSON.parse(reference.body));
    // The SDK signs some headers of its own (its invocation id, user agent); every header the SDK
    // needs signed for DynamoDB is signed here too.
    const essential = signedHeadersOf(reference).filter((name) => !/^(amz-sdk-|x-amz-user-agent)/.test(name));
    expect(signedHeadersOf(direct)).toEqual(expect.arrayContaining(essential));
    expect(String(direct.headers.authorization)).toContain(
      `Credential=${CREDENTIALS.accessKeyId}/${String(direct.headers['x-amz-date']).slice(0, 8)}/eu-west-1/dynamodb/aws4_request`,
    );
    expect(direct.headers.authorization).toBe(await expectedAuthorization(direct, 'eu-west-1'));
  });

  test('an error answer becomes an error named as the service names it, with its fields, not retried', async () => {
    endpoint.answers.push({
      status: 400,
      body: JSON.stringify({
        __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
        message: 'The conditional request failed',
        Item: { id: { S: 'rpm#key#a' } },
      }),
    });
    const error = (await sendOperation('UpdateItem', input).catch((caught: unknown) => caught)) as StoreServiceError;
    expect(error).toBeInstanceOf(StoreServiceError);
    expect(error).toMatchObject({
      name: 'ConditionalCheckFailedException',
      message: 'The conditional request failed',
      Item: { id: { S: 'rpm#key#a' } },
      $fault: 'client',
      $metadata: { httpStatusCode: 400, requestId: 'request-1' },
    });
    expect(endpoint.received).toHaveLength(1);
  });

  test('an answer cannot reshape the error: its own fields and the prototype stay', async () => {
    endpoint.answers.push({
      status: 400,
      body: '{"__type":"x#ValidationException","message":"bad","name":"Other","$fault":"server","stack":"s","__proto__":{"polluted":true},"constructor":1}',
    });
    const error = (await sendOperation('UpdateItem', input).catch((caught: unknown) => caught)) as StoreServiceError;
    expect(error).toBeInstanceOf(StoreServiceError);
    expect(error.name).toBe('ValidationException');
    expect(error.$fault).toBe('client');
    expect(error.stack).not.toBe('s');
    expect((error as unknown as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(error)).toBe(StoreServiceError.prototype);
  });

  test('throttling is retried as the SDK retries it, and left to a caller that retries it itself', async () => {
    const throttled = {
      status: 400,
      body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException' }),
    };
    const put = { TableName: 'usage', Item: { id: { S: 'x' } } };
    endpoint.answers.push(throttled);
    await expect(sendOperation('PutItem', put, THROTTLING_RETRIED_HERE)).rejects.toMatchObject({
      name: 'ProvisionedThroughputExceededException',
    });
    expect(endpoint.received).toHaveLength(1);
    endpoint.answers.push(throttled);
    await expect(sendOperation('PutItem', put)).resolves.toEqual({});
    expect(endpoint.received).toHaveLength(3);
  });

  test('a server fault is retried, and a call that succeeds on retry resolves with its output', async () => {
    endpoint.answers.push({ status: 500, body: JSON.stringify({ __type: 'InternalServerError', message: 'boom' }) });
    endpoint.answers.push({ status: 200, body: JSON.stringify({ Attributes: { count: { N: '3' } } }) });
    await expect(sendOperation('UpdateItem', input)).resolves.toEqual({ Attributes: { count: { N: '3' } } });
    expect(endpoint.received).toHaveLength(2);
  });

  test('a connection lost mid-answer is retried on a new one', async () => {
    endpoint.answers.push({ status: 200, body: '{"Attributes":{"count":', cut: true });
    endpoint.answers.push({ status: 200, body: JSON.stringify({ Attributes: { count: { N: '4' } } }) });
    await expect(sendOperation('UpdateItem', input)).resolves.toEqual({ Attributes: { count: { N: '4' } } });
    expect(endpoint.received).toHaveLength(2);
  });

  test.each([
    ['goes silent', { status: 200, body: '', silent: true }],
    ['stalls after its answer’s head', { status: 200, body: '{"Attributes":', stalled: true }],
  ])(
    'a store that %s is given up on after the idle timeout, and the call sent again on a new connection',
    async (_case, stuck) => {
      const connection = { ...((await storeConnection()) as SignedConnection), handler: new StoreHttpHandler(50) };
      endpoint.answers.push(stuck);
      endpoint.answers.push({ status: 200, body: JSON.stringify({ Attributes: { count: { N: '5' } } }) });
      await expect(sendSigned(connection, 'UpdateItem', input)).resolves.toEqual({ Attributes: { count: { N: '5' } } });
      expect(endpoint.received).toHaveLength(2);
      expect(endpoint.received[1]!.clientPort).not.toBe(endpoint.received[0]!.clientPort);

      for (let attempt = 0; attempt < 3; attempt += 1) endpoint.answers.push(stuck);
      // Past the retries, the client's 503: the store's own failure is its cause.
      await expect(sendSigned(connection, 'UpdateItem', input)).rejects.toMatchObject({
        status: 503,
        code: 'store_unavailable',
        cause: { name: 'TimeoutError', message: 'the store did not answer within 50 ms' },
      });
      expect(endpoint.received).toHaveLength(5);
      connection.handler.destroy();
    },
  );

  test.each(['ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNREFUSED'])(
    'a store that cannot be reached (%s) is tried again, then is a 503, never a 500',
    async (code) => {
      let tries = 0;
      const stop = onStoreRequests(() => {
        tries += 1;
        throw Object.assign(new Error(`connect ${code} store.example`), { code, syscall: 'connect' });
      });
      try {
        await expect(sendOperation('UpdateItem', input)).rejects.toMatchObject({
          status: 503,
          code: 'store_unavailable',
          cause: { code },
        });
      } finally {
        stop();
      }
      expect(tries).toBe(3);
    },
  );

  test('a store whose name does not resolve is a 503 once the retries are spent', async () => {
    // `.invalid` never resolves (RFC 6761): the resolver's own failure, whichever code it gives.
    const connection = { ...(await signedConnection()), url: new URL('http://store.invalid:8000') };
    await expect(sendSigned(connection, 'UpdateItem', input)).rejects.toMatchObject({
      status: 503,
      code: 'store_unavailable',
      cause: { code: expect.stringMatching(/^(ENOTFOUND|EAI_AGAIN)$/) },
    });
  });

  test('a connection kept alive between calls outlives the idle timeout of the calls it served', async () => {
    const connection = { ...((await storeConnection()) as SignedConnection), handler: new StoreHttpHandler(50) };
    await sendSigned(connection, 'UpdateItem', input);
    // A lower bound on time passed, not a wait for an event: the first call's timeout is long over.
    await elapsed(120);
    await sendSigned(connection, 'UpdateItem', input);
    expect(endpoint.received).toHaveLength(2);
    expect(endpoint.received[1]!.clientPort).toBe(endpoint.received[0]!.clientPort);
    connection.handler.destroy();
  });

  test('a call that cannot get credentials to sign with fails at once as the store being out of reach', async () => {
    const refused = new Error('the credentials endpoint answered 500');
    const connection = {
      ...((await storeConnection()) as SignedConnection),
      credentials: () => Promise.reject(refused),
    };
    await expect(sendSigned(connection, 'UpdateItem', input)).rejects.toMatchObject({
      status: 503,
      code: 'store_unavailable',
      cause: refused,
    });
    expect(endpoint.received).toHaveLength(0);
  });

  test('a fault that persists (a proxy page, not JSON) fails after three attempts as a server fault', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1)
      endpoint.answers.push({ status: 502, body: '<html>bad gateway</html>', contentType: 'text/html' });
    await expect(sendOperation('UpdateItem', input)).rejects.toMatchObject({
      status: 503,
      code: 'store_unavailable',
      cause: { name: 'InternalServerError', $fault: 'server', $metadata: { httpStatusCode: 502 } },
    });
    expect(endpoint.received).toHaveLength(3);
  });

  test('a signature refused for a skewed clock is sent again dated by the service’s clock, which the client keeps', async () => {
    const hourAhead = new Date(Date.now() + 3_600_000);
    endpoint.answers.push({
      status: 400,
      body: JSON.stringify({
        __type: 'com.amazon.coral.service#InvalidSignatureException',
        message: 'Signature expired',
      }),
      headers: { date: hourAhead.toUTCString() },
    });
    try {
      await sendOperation('UpdateItem', input);
      const dates = endpoint.received.map((request) => String(request.headers['x-amz-date']));
      expect(dates).toHaveLength(2);
      const dated = (amzDate: string) =>
        Date.UTC(
          +amzDate.slice(0, 4),
          +amzDate.slice(4, 6) - 1,
          +amzDate.slice(6, 8),
          +amzDate.slice(9, 11),
          +amzDate.slice(11, 13),
        );
      expect(dated(dates[1]!) - dated(dates[0]!)).toBeGreaterThan(3_000_000);
      expect(Math.abs((await signedConnection()).clockOffsetMs - 3_600_000)).toBeLessThan(60_000);
    } finally {
      (await signedConnection()).clockOffsetMs = 0;
    }
  });

  test('a refusal with the service’s clock close to ours is not retried', async () => {
    endpoint.answers.push({
      status: 400,
      body: JSON.stringify({ __type: 'com.amazon.coral.service#InvalidSignatureException', message: 'bad signature' }),
    });
    await expect(sendOperation('UpdateItem', input)).rejects.toMatchObject({ name: 'InvalidSignatureException' });
    expect(endpoint.received).toHaveLength(1);
  });

  test('the store wire sees every call, and can answer in the store’s place', async () => {
    const seen: string[] = [];
    const stop = onStoreRequests((command, sent) => {
      seen.push(`${command} ${String(sent.TableName)}`);
      return { status: 400, body: { __type: 'x#ThrottlingException', message: 'slow down' } };
    });
    try {
      await expect(sendOperation('UpdateItem', input, THROTTLING_RETRIED_HERE)).rejects.toMatchObject({
        name: 'ThrottlingException',
      });
    } finally {
      stop();
    }
    expect(seen).toEqual(['UpdateItemCommand counters']);
    expect(endpoint.received).toHaveLength(0);
  });

  test('a store at an IPv6 address is reached, its Host header as the URL writes it', async () => {
    // The address as a URL gives it: in brackets, which are the URL's, not the host's.
    const hosts: (string | undefined)[] = [];
    const ipv6 = createServer((request, response) => {
      hosts.push(request.headers.host);
      response.end('{"ok":true}');
    });
    ipv6.listen(0, '::1');
    await once(ipv6, 'listening');
    const { port } = ipv6.address() as AddressInfo;
    const handler = new StoreHttpHandler();
    try {
      const { response } = await handler.handle({
        method: 'POST',
        protocol: 'http:',
        hostname: '[::1]',
        port,
        path: '/',
        headers: {},
        body: '{}',
      });
      expect(response.statusCode).toBe(200);
      expect(await bodyText(response.body)).toBe('{"ok":true}');
      expect(hosts).toEqual([`[::1]:${port}`]);
    } finally {
      handler.destroy();
      ipv6.close();
    }
  });
});

describe('store calls without a custom endpoint', () => {
  afterEach(() => resetStore());

  /** Sends one call with `environment`; reads where it would go and how it is signed, sends nothing. */
  const sentWith = async (environment: Record<string, string>) => {
    useEnvironment(environment);
    const sent: { url: string; host: string; authorization: string; token?: string }[] = [];
    const handler = storeRequestHandler() as unknown as {
      handle: (request: { hostname: string; protocol: string; headers: Record<string, string> }) => Promise<unknown>;
    };
    handler.handle = (request) => {
      sent.push({
        url: `${request.protocol}//${request.hostname}`,
        host: request.headers.host!,
        authorization: request.headers.authorization!,
        token: request.headers['x-amz-security-token'],
      });
      return Promise.reject(Object.assign(new Error('not sent'), { name: 'NotSent' }));
    };
    await expect(sendOperation('PutItem', { TableName: 'usage', Item: { id: { S: 'x' } } })).rejects.toMatchObject({
      name: 'NotSent',
    });
    return sent[0]!;
  };

  const environmentCredentials = {
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
  };

  test('a Lambda function goes to its region’s endpoint, signed with the credentials of its environment', async () => {
    const sent = await sentWith({
      AWS_LAMBDA_FUNCTION_NAME: 'model-gateway-chat',
      AWS_REGION: 'ap-southeast-2',
      ...environmentCredentials,
      AWS_SESSION_TOKEN: CREDENTIALS.sessionToken,
    });
    expect(sent.url).toBe('https://dynamodb.ap-southeast-2.amazonaws.com');
    expect(sent.host).toBe('dynamodb.ap-southeast-2.amazonaws.com');
    expect(sent.authorization).toContain(`Credential=${CREDENTIALS.accessKeyId}/`);
    expect(sent.authorization).toContain('/ap-southeast-2/dynamodb/aws4_request');
    expect(sent.token).toBe(CREDENTIALS.sessionToken);
  });

  test('elsewhere the SDK resolves the endpoint and credentials, to the same place', async () => {
    const sent = await sentWith({ AWS_REGION: 'ap-southeast-2', ...environmentCredentials });
    expect(sent.url).toBe('https://dynamodb.ap-southeast-2.amazonaws.com');
    expect(sent.authorization).toContain(`Credential=${CREDENTIALS.accessKeyId}/`);
    expect(sent.token).toBeUndefined();
  });

  test('through the SDK’s client too, a store that cannot be reached is a 503', async () => {
    useEnvironment({ AWS_REGION: 'ap-southeast-2', ...environmentCredentials });
    const handler = storeRequestHandler() as unknown as { handle: () => Promise<unknown> };
    handler.handle = () =>
      Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND dynamodb.example'), { code: 'ENOTFOUND' }));
    await expect(sendOperation('PutItem', { TableName: 'usage', Item: { id: { S: 'x' } } })).rejects.toMatchObject({
      status: 503,
      code: 'store_unavailable',
    });
  });

  test('a FIPS endpoint is the SDK’s to resolve, in a Lambda function too', async () => {
    const sent = await sentWith({
      AWS_LAMBDA_FUNCTION_NAME: 'model-gateway-chat',
      AWS_REGION: 'us-east-1',
      AWS_USE_FIPS_ENDPOINT: 'true',
      ...environmentCredentials,
    });
    expect(sent.url).toBe('https://dynamodb-fips.us-east-1.amazonaws.com');
  });

  test('without a region the SDK’s error fails the call, and nothing is sent', async () => {
    useEnvironment({ AWS_LAMBDA_FUNCTION_NAME: 'model-gateway-chat', ...environmentCredentials });
    const region = process.env.AWS_DEFAULT_REGION;
    delete process.env.AWS_DEFAULT_REGION;
    let sent = 0;
    (storeRequestHandler() as unknown as { handle: () => Promise<unknown> }).handle = () => {
      sent += 1;
      return Promise.reject(new Error('not sent'));
    };
    try {
      await expect(sendOperation('GetItem', { TableName: 'keys', Key: { keyHash: { S: 'x' } } })).rejects.toThrow(
        /region/i,
      );
      expect(sent).toBe(0);
    } finally {
      if (region !== undefined) process.env.AWS_DEFAULT_REGION = region;
    }
  });
});

describe('store calls against the embedded engine', () => {
  let embedded: EmbeddedStore;

  beforeAll(async () => {
    embedded = await startEmbeddedStore('memory', 'in-process');
    await ensureTables(embedded.endpoint);
    useEnvironment({ DYNAMODB_ENDPOINT: embedded.endpoint });
  });

  afterAll(async () => {
    resetStore();
    await embedded.close();
  });

  test('a conditional update answers as the SDK client does, and a refused one fails by name', async () => {
    const table = physicalTableName('counters');
    const charge = (id: string) => ({
      TableName: table,
      Key: { id: { S: id } },
      ConditionExpression: 'attribute_not_exists(#count) OR #count <= :ceiling',
      UpdateExpression: 'ADD #count :amount',
      ExpressionAttributeNames: { '#count': 'count' },
      ExpressionAttributeValues: { ':amount': { N: '2' }, ':ceiling': { N: '1' } },
      ReturnValues: 'UPDATED_NEW' as const,
    });
    const sdk = new DynamoDBClient({
      endpoint: embedded.endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const reference = await sdk.send(new UpdateItemCommand(charge('direct-reference')));
    sdk.destroy();
    const direct = await sendOperation('UpdateItem', charge('direct-call'));
    expect(direct).toEqual({ Attributes: reference.Attributes });
    await expect(sendOperation('UpdateItem', charge('direct-call'))).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
      $fault: 'client',
    });
  });

  test('binary attributes travel as base64 and are stored as bytes', async () => {
    const table = physicalTableName('usage');
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    const view = new Uint8Array([9, 8, 7]);
    const item = { partition: { S: 'binary-test' }, sk: { S: 'one' }, raw: { B: bytes }, set: { BS: [view] } };
    await sendOperation('PutItem', { TableName: table, Item: item });
    const key = { TableName: table, Key: { partition: 'binary-test', sk: 'one' }, ConsistentRead: true };
    const { Item } = await store().send(new GetCommand(key));
    expect(Buffer.from(Item!.raw as Uint8Array)).toEqual(bytes);
    expect([...(Item!.set as Set<Uint8Array>)].map((value) => [...value])).toEqual([[9, 8, 7]]);
    // Read back through the gateway's own calls, they come back as the SDK gives them: bytes.
    const read = (await getItem(key)).Item!;
    expect(Buffer.from(read.raw as Uint8Array)).toEqual(bytes);
    expect([...(read.set as Set<Uint8Array>)].map((value) => [...value])).toEqual([[9, 8, 7]]);
  });

  test('binary values deep in maps and lists travel as base64, beside text that only looks like them', async () => {
    const table = physicalTableName('usage');
    const bytes = Buffer.from([4, 5, 6]);
    const item = {
      partition: { S: 'binary-test' },
      sk: { S: 'nested' },
      deep: { M: { list: { L: [{ S: '"B":' }, { M: { inner: { B: bytes } } }] } } },
      // A member named B holding text, and text shaped like a binary member, stay what they are.
      named: { M: { B: { S: 'not bytes' }, BS: { SS: ['"BS":["x"]'] } } },
    };
    await sendOperation('PutItem', { TableName: table, Item: item });
    const key = { TableName: table, Key: { partition: 'binary-test', sk: 'nested' }, ConsistentRead: true };
    const { Item } = await store().send(new GetCommand(key));
    const deep = Item!.deep as { list: [string, { inner: Uint8Array }] };
    expect(deep.list[0]).toBe('"B":');
    expect(Buffer.from(deep.list[1].inner)).toEqual(bytes);
    expect(Item!.named).toEqual({ B: 'not bytes', BS: new Set(['"BS":["x"]']) });
  });
});
