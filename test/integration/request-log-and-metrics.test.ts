import {
  ACCOUNT_METRICS_VARIABLE,
  metricDirectives,
  metricsMember,
} from '../../functions/shared/observability/embedded-metrics.js';
import { errorCounters, requestMetrics } from '../../functions/shared/observability/request-metrics.js';
import { captureLogLines, type CapturedLogLines, type LogLine } from '../support/captured-log-lines.js';
import { startFakeUpstream, type FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startTestGateway, type HttpResult, type TestGateway } from '../support/test-gateway.js';

let upstream: FakeUpstream;
let gateway: TestGateway;
let logs: CapturedLogLines;
let key: string;
let keyId: string;
let accountId: string;

beforeAll(async () => {
  logs = captureLogLines('info');
  upstream = await startFakeUpstream();
  gateway = await startTestGateway();
  await gateway.admin('PUT', '/admin/v1/channels/fake-openai', {
    type: 'openai',
    baseUrl: upstream.baseUrl,
    models: ['gpt-log'],
  });
  await gateway.admin('PUT', '/admin/v1/models/gpt-log', { pricing: { inputPerMTok: 1, outputPerMTok: 2 } });
  ({
    key,
    keyId,
    account: { id: accountId },
  } = await gateway.createAccountWithKey());
});

afterEach(() => upstream.clearFaults());

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
  logs?.restore();
});

const chat = (body: Record<string, unknown> = {}, requestKey: string | undefined = key) =>
  gateway.request('POST', '/v1/chat/completions', {
    key: requestKey,
    body: { model: 'gpt-log', messages: [{ role: 'user', content: 'hello there' }], ...body },
  });

/** The request line of a response, written once the request has completely ended. */
const requestLine = (response: HttpResult): Promise<LogLine> => {
  const requestId = response.headers.get('x-request-id');
  return logs.next((line) => line.message === 'request' && line.requestId === requestId);
};

type Directive = { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] };

/** What CloudWatch requires of an EMF line: every metric and every dimension it names is a field of the line. */
const expectValidEmf = (line: LogLine) => {
  const metadata = line._aws as { Timestamp: number; CloudWatchMetrics: Directive[] };
  expect(typeof metadata.Timestamp).toBe('number');
  expect(metadata.CloudWatchMetrics.length).toBeGreaterThan(0);
  for (const directive of metadata.CloudWatchMetrics) {
    expect(directive.Namespace).toEqual(expect.any(String));
    expect(directive.Metrics.length).toBeLessThanOrEqual(100);
    for (const set of directive.Dimensions) {
      expect(set.length).toBeLessThanOrEqual(30);
      for (const dimension of set) expect(typeof line[dimension]).toBe('string');
    }
    for (const metric of directive.Metrics) expect(typeof line[metric.Name]).toBe('number');
  }
  return metadata.CloudWatchMetrics;
};

const timingFrom = (response: HttpResult) => {
  const overhead = Number(response.headers.get('x-gateway-overhead-ms'));
  const serverTiming = response.headers.get('server-timing') ?? '';
  const gatewayPart = /gateway;dur=([\d.]+)/.exec(serverTiming);
  const upstreamPart = /upstream;dur=([\d.]+)/.exec(serverTiming);
  return { overhead, gateway: Number(gatewayPart?.[1]), upstream: Number(upstreamPart?.[1]) };
};

describe('the request log line', () => {
  test('a buffered success logs who, what, tokens, cost and times, and is a valid EMF line by model and account', async () => {
    const response = await chat();
    expect(response.status).toBe(200);
    const line = await requestLine(response);

    expect(line).toMatchObject({
      level: 'info',
      requestId: response.headers.get('x-request-id'),
      method: 'POST',
      path: '/v1/chat/completions',
      status: 200,
      accountId,
      keyId,
      keyPrefix: key.slice(0, 10),
      model: 'gpt-log',
      channelId: 'fake-openai',
      attempts: 1,
      stream: false,
      outcome: 'success',
      promptTokens: 11,
      completionTokens: 7,
      totalTokens: 18,
      cost: (11 * 1 + 7 * 2) / 1e6,
      requests: 1,
    });
    // A zero counter is left out of the line and of its directives: it adds nothing to a sum.
    for (const counter of errorCounters) expect(line).not.toHaveProperty(counter);
    for (const field of ['latencyMs', 'firstByteMs', 'upstreamMs', 'overheadMs'])
      expect(line[field]).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(line)).not.toContain(key);
    const directives = expectValidEmf(line);
    expect(directives.map((directive) => directive.Dimensions)).toEqual([[[]], [['model']], [['accountId']]]);
  });

  test('a stream logs once, after its end, with the usage the upstream reported', async () => {
    const response = await chat({ stream: true });
    expect(response.status).toBe(200);
    expect(response.text).toContain('data: [DONE]');
    const line = await requestLine(response);
    expect(line).toMatchObject({
      status: 200,
      stream: true,
      outcome: 'success',
      totalTokens: 18,
      channelId: 'fake-openai',
    });
    expectValidEmf(line);
    expect(
      logs.lines.filter((entry) => entry.requestId === line.requestId && entry.message === 'request'),
    ).toHaveLength(1);
  });

  test('an upstream failure is counted as an upstream error and a 5xx, by model', async () => {
    upstream.inject({ kind: 'status', status: 500 });
    const response = await chat();
    expect(response.status).toBe(502);
    const line = await requestLine(response);
    expect(line).toMatchObject({
      status: 502,
      outcome: 'upstream_error',
      model: 'gpt-log',
      requests: 1,
      serverErrors: 1,
      upstreamErrors: 1,
    });
    for (const counter of ['clientErrors', 'throttled', 'clientAborts']) expect(line).not.toHaveProperty(counter);
    const named = expectValidEmf(line).map((directive) => directive.Metrics.map((metric) => metric.Name));
    expect(named[0]).toEqual(expect.arrayContaining(['serverErrors', 'upstreamErrors']));
    expect(named[1]).toEqual(expect.arrayContaining(['serverErrors', 'upstreamErrors']));
    expect(named.flat()).not.toContain('clientErrors');
  });

  test('a refused key logs a client error without model or account dimensions', async () => {
    const response = await chat({}, 'sk-not-a-real-key-000000000000000000000000000000000');
    expect(response.status).toBe(401);
    const line = await requestLine(response);
    expect(line).toMatchObject({ status: 401, clientErrors: 1, requests: 1 });
    expect(line).not.toHaveProperty('accountId');
    expect(line).not.toHaveProperty('model');
    expect(expectValidEmf(line).map((directive) => directive.Dimensions)).toEqual([[[]]]);
    expect(JSON.stringify(line)).not.toContain('sk-not-a-real-key');
  });

  test('a key a client put in the path is scrubbed from the line, whose own ids and figures are kept', async () => {
    const response = await gateway.request('POST', `/v1beta/models/${key}:generateContent`, {
      key,
      body: { contents: [{ parts: [{ text: 'hello' }] }] },
    });
    expect(response.status).toBe(404);
    const line = await requestLine(response);
    expect(JSON.stringify(line)).not.toContain(key.slice(10));
    expect(line.path).toContain('[redacted]');
    expect(line).toMatchObject({ status: 404, accountId, keyId, clientErrors: 1, requests: 1 });
    expectValidEmf(line);
  });
});

describe('the gateway overhead headers', () => {
  test('every response says the gateway time apart from the upstream time, and the log and usage record agree', async () => {
    upstream.inject({ kind: 'delay', ms: 200 });
    const response = await chat();
    expect(response.status).toBe(200);
    const timing = timingFrom(response);
    expect(timing.upstream).toBeGreaterThanOrEqual(200);
    expect(timing.gateway).toBe(timing.overhead);
    const line = await requestLine(response);
    expect(line.overheadMs).toBe(timing.overhead);
    expect(line.upstreamMs).toBe(timing.upstream);
    expect(Number(line.firstByteMs)).toBeGreaterThanOrEqual(timing.overhead + timing.upstream - 0.02);

    const records = await gateway.admin('GET', `/admin/v1/usage?keyId=${keyId}`);
    const record = records.body.data.find((entry: { requestId: string }) => entry.requestId === line.requestId);
    expect(record.overheadMs).toBeGreaterThanOrEqual(0);
    expect(record.overheadMs).toBeLessThanOrEqual(timing.overhead);
  });

  test('a stream carries them in its head, and errors carry them too', async () => {
    const stream = await chat({ stream: true });
    expect(timingFrom(stream).overhead).toBeGreaterThanOrEqual(0);
    expect(stream.headers.get('server-timing')).toMatch(/^gateway;dur=[\d.]+, upstream;dur=[\d.]+$/);
    const refused = await gateway.request('GET', '/v1/models');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-gateway-overhead-ms')).toMatch(/^[\d.]+$/);
  });
});

describe('embedded metric directives', () => {
  const times = { latencyMs: 12.5, firstByteMs: 12.5, upstreamMs: 12, overheadMs: 0.5 };
  const metered = {
    model: 'gpt-log',
    endpoint: 'chat',
    stream: false,
    channelId: 'fake-openai',
    attempts: 1,
    outcome: 'success',
    promptTokens: 11,
    completionTokens: 7,
    totalTokens: 18,
    cost: 0.000025,
  } as const;
  const success = requestMetrics(200, times, metered);
  const throttled = requestMetrics(429, times, undefined);
  const directiveNames = (directives: { Metrics: { Name: string }[] }[]) =>
    directives.map((directive) => directive.Metrics.map((metric) => metric.Name));

  test('name only metrics CloudWatch can take: at most 100 per directive, dimension sets chosen, not per request', () => {
    const all = metricDirectives(success, true, true);
    expect(all).toHaveLength(3);
    for (const directive of all) expect(directive.Metrics.length).toBeLessThanOrEqual(100);
    for (const reported of [success, throttled]) {
      for (const model of [false, true]) {
        for (const account of [false, true]) {
          expect(JSON.parse(`{${metricsMember(reported, model, account, 1795681330230)}}`)).toEqual({
            _aws: { Timestamp: 1795681330230, CloudWatchMetrics: metricDirectives(reported, model, account) },
          });
        }
      }
    }
  });

  test('are built from metrics that hold each error counter only where it is 1', () => {
    for (const counter of errorCounters) expect(success).not.toHaveProperty(counter);
    const failed = requestMetrics(502, times, { ...metered, outcome: 'upstream_error' });
    expect(errorCounters.filter((counter) => counter in failed)).toEqual(['serverErrors', 'upstreamErrors']);
    expect(failed).toMatchObject({ serverErrors: 1, upstreamErrors: 1 });
    const aborted = requestMetrics(200, times, { ...metered, outcome: 'client_aborted' });
    expect(errorCounters.filter((counter) => counter in aborted)).toEqual(['clientAborts']);
    expect(errorCounters.filter((counter) => counter in requestMetrics(404, times, undefined))).toEqual([
      'clientErrors',
    ]);
  });

  test('name the error counters a line holds and no other, and give units to times alone', () => {
    expect(directiveNames(metricDirectives(success, true, true))).toEqual([
      [
        'requests',
        'latencyMs',
        'firstByteMs',
        'upstreamMs',
        'overheadMs',
        'promptTokens',
        'completionTokens',
        'totalTokens',
        'cost',
      ],
      ['requests', 'latencyMs', 'firstByteMs', 'overheadMs', 'totalTokens', 'cost'],
      ['requests', 'totalTokens', 'cost'],
    ]);
    const named = directiveNames(metricDirectives(throttled, true, true));
    expect(named[0]).toContain('throttled');
    expect(named[1]).not.toContain('throttled');
    expect(named[2]).toEqual(['requests', 'throttled', 'totalTokens', 'cost']);
    for (const metric of metricDirectives(throttled, true, true).flatMap((directive) => directive.Metrics)) {
      expect(metric).toEqual(
        metric.Name.endsWith('Ms') ? { Name: metric.Name, Unit: 'Milliseconds' } : { Name: metric.Name },
      );
    }
    // Each variant is its own text, not the first one made reused for another.
    expect(metricsMember(throttled, true, true, 1)).not.toEqual(metricsMember(success, true, true, 1));
  });

  test('leave out the per-account set where the stack turned account metrics off, and nothing else', () => {
    process.env[ACCOUNT_METRICS_VARIABLE] = 'off';
    try {
      for (const model of [false, true]) {
        expect(JSON.parse(`{${metricsMember(throttled, model, true, 1795681330230)}}`)).toEqual({
          _aws: { Timestamp: 1795681330230, CloudWatchMetrics: metricDirectives(throttled, model, false) },
        });
      }
    } finally {
      delete process.env[ACCOUNT_METRICS_VARIABLE];
    }
    expect(JSON.parse(`{${metricsMember(throttled, true, true, 1)}}`)._aws.CloudWatchMetrics).toHaveLength(3);
  });
});
