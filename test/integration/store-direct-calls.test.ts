import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { SignatureV4 } from '@smithy/signature-v4';
import { SigningSha256 } from '../../functions/shared/aws/signing-sha256.js';
import { resetStore, store } from '../../functions/shared/store/client.js';
import { sendDirect, StoreServiceError } from '../../functions/shared/store/direct-calls.js';
import { physicalTableName } from '../../functions/shared/store/tables.js';
import { ensureTables, startEmbeddedStore, type EmbeddedStore } from '../../infra/local/embedded-store.js';
import { onStoreRequests } from '../support/store-wire.js';

/**
 * The prepared store calls against DynamoDB's wire format: an HTTP endpoint that records what
 * arrives and answers as DynamoDB does, and the embedded engine for the round trips. The SDK's own
 * client, sent the same operation, is the reference for what a request must carry.
 */

const ENVIRONMENT = [
  'DYNAMODB_ENDPOINT',
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

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
}

/** An endpoint that records each request and answers with the next scripted answer (else `{}`). */
const startEndpoint = async () => {
  const received: Received[] = [];
  /** `cut`: the connection is closed mid-answer, after its head and part of its body. */
  const answers: {
    status: number;
    body: string;
    contentType?: string;
    headers?: Record<string, string>;
    cut?: boolean;
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
      });
      const answer = answers.shift() ?? { status: 200, body: '{}' };
      response.writeHead(answer.status, {
        'content-type': answer.contentType ?? 'application/x-amz-json-1.0',
        'x-amzn-requestid': `request-${received.length}`,
        ...answer.headers,
      });
      if (answer.cut) response.write(answer.body, () => response.socket?.destroy());
      else response.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answers,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
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
  const signer = new SignatureV4({ credentials: CREDENTIALS, region, service: 'dynamodb', sha256: SigningSha256 });
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

describe('prepared store calls on the wire', () => {
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
    await sendDirect('UpdateItem', input);
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
    const error = (await sendDirect('UpdateItem', input).catch((caught: unknown) => caught)) as StoreServiceError;
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
    const error = (await sendDirect('UpdateItem', input).catch((caught: unknown) => caught)) as StoreServiceError;
    expect(error).toBeInstanceOf(StoreServiceError);
    expect(error.name).toBe('ValidationException');
    expect(error.$fault).toBe('client');
    expect(error.stack).not.toBe('s');
    expect((error as unknown as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(error)).toBe(StoreServiceError.prototype);
  });

  test('throttling is left to the caller: one attempt here', async () => {
    endpoint.answers.push({
      status: 400,
      body: JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException' }),
    });
    await expect(sendDirect('PutItem', { TableName: 'usage', Item: { id: { S: 'x' } } })).rejects.toMatchObject({
      name: 'ProvisionedThroughputExceededException',
    });
    expect(endpoint.received).toHaveLength(1);
  });

  test('a server fault is retried, and a call that succeeds on retry resolves with its output', async () => {
    endpoint.answers.push({ status: 500, body: JSON.stringify({ __type: 'InternalServerError', message: 'boom' }) });
    endpoint.answers.push({ status: 200, body: JSON.stringify({ Attributes: { count: { N: '3' } } }) });
    await expect(sendDirect('UpdateItem', input)).resolves.toEqual({ Attributes: { count: { N: '3' } } });
    expect(endpoint.received).toHaveLength(2);
  });

  test('a connection lost mid-answer is retried on a new one', async () => {
    endpoint.answers.push({ status: 200, body: '{"Attributes":{"count":', cut: true });
    endpoint.answers.push({ status: 200, body: JSON.stringify({ Attributes: { count: { N: '4' } } }) });
    await expect(sendDirect('UpdateItem', input)).resolves.toEqual({ Attributes: { count: { N: '4' } } });
    expect(endpoint.received).toHaveLength(2);
  });

  test('a preparation that failed (the region not resolvable yet) is made again by the next call', async () => {
    resetStore();
    const config = store().config as unknown as { region: () => Promise<string> };
    const region = config.region;
    let refusals = 0;
    config.region = () => (refusals++ === 0 ? Promise.reject(new Error('no region yet')) : region());
    await expect(sendDirect('UpdateItem', input)).rejects.toThrow('no region yet');
    await expect(sendDirect('UpdateItem', input)).resolves.toEqual({});
    expect(endpoint.received).toHaveLength(1);
  });

  test('a fault that persists (a proxy page, not JSON) fails after three attempts as a server fault', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1)
      endpoint.answers.push({ status: 502, body: '<html>bad gateway</html>', contentType: 'text/html' });
    await expect(sendDirect('UpdateItem', input)).rejects.toMatchObject({
      name: 'InternalServerError',
      $fault: 'server',
      $metadata: { httpStatusCode: 502 },
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
      await sendDirect('UpdateItem', input);
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
      expect(Math.abs((store().config as { systemClockOffset?: number }).systemClockOffset! - 3_600_000)).toBeLessThan(
        60_000,
      );
    } finally {
      (store().config as { systemClockOffset?: number }).systemClockOffset = 0;
    }
  });

  test('a refusal with the service’s clock close to ours is not retried', async () => {
    endpoint.answers.push({
      status: 400,
      body: JSON.stringify({ __type: 'com.amazon.coral.service#InvalidSignatureException', message: 'bad signature' }),
    });
    await expect(sendDirect('UpdateItem', input)).rejects.toMatchObject({ name: 'InvalidSignatureException' });
    expect(endpoint.received).toHaveLength(1);
  });

  test('the store wire sees prepared calls like any other, and can answer in the store’s place', async () => {
    const seen: string[] = [];
    const stop = onStoreRequests((command, sent) => {
      seen.push(`${command} ${String(sent.TableName)}`);
      return { status: 400, body: { __type: 'x#ThrottlingException', message: 'slow down' } };
    });
    try {
      await expect(sendDirect('UpdateItem', input)).rejects.toMatchObject({ name: 'ThrottlingException' });
    } finally {
      stop();
    }
    expect(seen).toEqual(['UpdateItemCommand counters']);
    expect(endpoint.received).toHaveLength(0);
  });
});

describe('prepared store calls without a custom endpoint', () => {
  test('go to the region’s DynamoDB endpoint, as the SDK resolves it', async () => {
    useEnvironment({
      AWS_REGION: 'ap-southeast-2',
      AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    });
    const hosts: string[] = [];
    const handler = store().config.requestHandler as unknown as {
      handle: (request: { hostname: string; protocol: string; headers: Record<string, string> }) => Promise<unknown>;
    };
    // Nothing leaves this machine: the request is read where it would be sent.
    handler.handle = (request) => {
      hosts.push(`${request.protocol}//${request.hostname} ${request.headers.host}`);
      // Signed with the credentials of the environment, through the SDK's default chain.
      expect(request.headers.authorization).toContain(`Credential=${CREDENTIALS.accessKeyId}/`);
      expect(request.headers['x-amz-security-token']).toBeUndefined();
      return Promise.reject(Object.assign(new Error('not sent'), { name: 'NotSent' }));
    };
    await expect(sendDirect('PutItem', { TableName: 'usage', Item: { id: { S: 'x' } } })).rejects.toMatchObject({
      name: 'NotSent',
    });
    expect(hosts).toEqual(['https://dynamodb.ap-southeast-2.amazonaws.com dynamodb.ap-southeast-2.amazonaws.com']);
    resetStore();
  });
});

describe('prepared store calls against the embedded engine', () => {
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
    const direct = await sendDirect('UpdateItem', charge('direct-call'));
    expect(direct).toEqual({ Attributes: reference.Attributes });
    await expect(sendDirect('UpdateItem', charge('direct-call'))).rejects.toMatchObject({
      name: 'ConditionalCheckFailedException',
      $fault: 'client',
    });
  });

  test('binary attributes travel as base64 and are stored as bytes', async () => {
    const table = physicalTableName('usage');
    const bytes = Buffer.from([0, 1, 2, 250, 255]);
    const view = new Uint8Array([9, 8, 7]);
    const item = { partition: { S: 'binary-test' }, sk: { S: 'one' }, raw: { B: bytes }, set: { BS: [view] } };
    await sendDirect('PutItem', { TableName: table, Item: item });
    const { Item } = await store().send(
      new GetCommand({ TableName: table, Key: { partition: 'binary-test', sk: 'one' }, ConsistentRead: true }),
    );
    expect(Buffer.from(Item!.raw as Uint8Array)).toEqual(bytes);
    expect([...(Item!.set as Set<Uint8Array>)].map((value) => [...value])).toEqual([[9, 8, 7]]);
  });
});
