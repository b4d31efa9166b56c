import { Writable } from 'node:stream';
import type { LambdaFunctionURLEvent } from 'aws-lambda';
import { startLocalSessionsTable } from '../support/fake-upstream/fake-sessions-table.js';

/**
 * The fixtures stack's function as Lambda runs it: its handler, given function URL events and a
 * response stream (the runtime's streaming globals stood in for), its sessions in a DynamoDB table.
 */
const TOKEN = 'fixtures-token-0123456789abcdefghijklmnop';
const TABLE = 'fixtures-sessions';

class ResponseStream extends Writable {
  readonly chunks: Buffer[] = [];
  prelude: { statusCode?: number; headers?: Record<string, string> } = {};
  readonly firstWrite: Promise<void>;
  private wrote!: () => void;
  constructor() {
    super();
    this.firstWrite = new Promise((resolve) => (this.wrote = resolve));
  }
  override _write(chunk: Buffer, _encoding: string, callback: () => void) {
    this.chunks.push(Buffer.from(chunk));
    this.wrote();
    callback();
  }
  text() {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

type Handler = (event: LambdaFunctionURLEvent, stream: Writable) => Promise<void>;

const urlEvent = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  ({
    version: '2.0',
    rawPath: path.split('?')[0]!,
    rawQueryString: path.split('?')[1] ?? '',
    headers: { host: 'abc.lambda-url.us-east-1.on.aws', 'content-type': 'application/json', ...headers },
    requestContext: { http: { method, path: path.split('?')[0]! } },
    body: body === undefined ? undefined : Buffer.from(JSON.stringify(body)).toString('base64'),
    isBase64Encoded: true,
  }) as unknown as LambdaFunctionURLEvent;

let handler: Handler;
let closeTable: () => Promise<void>;
const savedEnvironment = { ...process.env };

beforeAll(async () => {
  const table = await startLocalSessionsTable(TABLE);
  closeTable = () => table.store.close();
  const endpoint = await table.client.config.endpoint!();
  Object.assign(process.env, {
    FAKE_UPSTREAM_TABLE: TABLE,
    FAKE_UPSTREAM_TOKEN: TOKEN,
    AWS_ENDPOINT_URL_DYNAMODB: `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local-test-only',
    AWS_SECRET_ACCESS_KEY: 'local-test-only',
  });
  Object.assign(globalThis, {
    awslambda: {
      streamifyResponse: (entry: Handler) => entry,
      HttpResponseStream: {
        from: (stream: ResponseStream, prelude: ResponseStream['prelude']) => Object.assign(stream, { prelude }),
      },
    },
  });
  ({ handler } = (await import('../../infra/fixtures/fake-upstream-function.js')) as unknown as { handler: Handler });
});

afterAll(async () => {
  process.env = savedEnvironment;
  await closeTable?.();
});

const invoke = async (event: LambdaFunctionURLEvent) => {
  const stream = new ResponseStream();
  await handler(event, stream);
  return { status: stream.prelude.statusCode, headers: stream.prelude.headers ?? {}, text: stream.text() };
};

const control = `Bearer ${TOKEN}`;

const openSession = async (): Promise<string> => {
  const opened = await invoke(
    urlEvent('POST', '/control/sessions', { wires: [{ wire: 'openai' }] }, { authorization: control }),
  );
  expect(opened.status).toBe(201);
  return JSON.parse(opened.text).id as string;
};

const chat = (session: string, stream: boolean) =>
  urlEvent(
    'POST',
    `/sessions/${session}/fake/v1/chat/completions`,
    { model: 'm', messages: [{ role: 'user', content: 'one two three' }], stream },
    { authorization: 'Bearer sk-upstream' },
  );

it('guards the control API with the token', async () => {
  const refused = await invoke(urlEvent('POST', '/control/sessions', { wires: [{ wire: 'openai' }] }));
  expect(refused.status).toBe(401);
});

it('serves a session queued by one invocation to the next, and records what it received', async () => {
  const session = await openSession();
  const queued = await invoke(
    urlEvent(
      'POST',
      `/control/sessions/${session}/faults`,
      { faults: [{ kind: 'status', status: 503 }] },
      {
        authorization: control,
      },
    ),
  );
  expect(queued.status).toBe(204);
  expect((await invoke(chat(session, false))).status).toBe(503);
  const answered = await invoke(chat(session, false));
  expect(answered.status).toBe(200);
  expect(answered.headers['content-type']).toBe('application/json');
  expect(JSON.parse(answered.text).choices[0].message.content).toBe('Echo: one two three');
  const received = await invoke(
    urlEvent('GET', `/control/sessions/${session}/received`, undefined, { authorization: control }),
  );
  const requests = JSON.parse(received.text).requests;
  expect(requests).toHaveLength(2);
  expect(requests[1].headers.authorization).toBe('Bearer sk-upstream');
  expect(requests[1].path).toBe('/v1/chat/completions');
});

it('streams event by event: the first event is out before the fake has finished', async () => {
  const session = await openSession();
  await invoke(
    urlEvent(
      'POST',
      `/control/sessions/${session}/faults`,
      { faults: [{ kind: 'slow-stream', gapMs: 200 }] },
      {
        authorization: control,
      },
    ),
  );
  const stream = new ResponseStream();
  let finished = false;
  const done = handler(chat(session, true), stream).then(() => (finished = true));
  await stream.firstWrite;
  expect(finished).toBe(false);
  expect(stream.prelude.headers?.['content-type']).toBe('text/event-stream');
  await done;
  expect(stream.text()).toMatch(/data: \[DONE\]\n\n$/);
});

it('fails the invocation when the fake drops the connection, so the caller sees it dropped too', async () => {
  const session = await openSession();
  await invoke(
    urlEvent(
      'POST',
      `/control/sessions/${session}/faults`,
      { faults: [{ kind: 'cut-mid-stream', afterEvents: 2 }] },
      {
        authorization: control,
      },
    ),
  );
  const stream = new ResponseStream();
  await expect(handler(chat(session, true), stream)).rejects.toThrow();
  expect(stream.text().split('\n\n').filter(Boolean)).toHaveLength(2);
});

it('closes the fake when the caller goes away, and counts it', async () => {
  const session = await openSession();
  await invoke(
    urlEvent(
      'POST',
      `/control/sessions/${session}/faults`,
      { faults: [{ kind: 'stall-mid-stream', afterEvents: 1 }] },
      {
        authorization: control,
      },
    ),
  );
  const stream = new ResponseStream();
  const done = handler(chat(session, true), stream).catch(() => undefined);
  await stream.firstWrite;
  stream.destroy();
  await done;
  const aborted = async () =>
    JSON.parse(
      (await invoke(urlEvent('GET', `/control/sessions/${session}/aborted`, undefined, { authorization: control })))
        .text,
    ).count as number;
  while ((await aborted()) === 0) await new Promise((resolve) => setImmediate(resolve));
  expect(await aborted()).toBe(1);
});
