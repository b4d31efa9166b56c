/**
 * The least a relaying function can do, run by `bench:lambda` beside the chat function: read the
 * event, post its body to the upstream (`RELAY_FLOOR_UPSTREAM`), stream the answer back, deliver a
 * usage-sized record as the chat function does (`RELAY_FLOOR_USAGE_DELIVERY`): as a log line, or put in
 * the store's usage table (`DYNAMODB_ENDPOINT`; the table and its key names in
 * `RELAY_FLOOR_USAGE_TABLE` and `RELAY_FLOOR_USAGE_KEYS`), waiting for its answer as the gateway does;
 * and write a request-sized log line. The put is unsigned (only the I/O counts) but well-formed, so the
 * store's stand-in takes it as a record and answers after DynamoDB's latency, as it answers the
 * gateway's: a call the store refused at once would spare the floor the wait, and on this host the
 * time a process waits costs CPU when it wakes. Its CPU beyond hello's is what the sandbox charges any
 * relay for that I/O; the chat function's beyond the floor's is the gateway's own work.
 */
/* global awslambda -- the runtime interface client defines it before it imports a handler */
import http from 'node:http';

const agent = new http.Agent({ keepAlive: true });

const post = (url, body, headers) =>
  new Promise((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (response) => {
        const parts = [];
        response.on('data', (part) => parts.push(part));
        response.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });

const [partitionKey, sortKey] = (process.env.RELAY_FLOOR_USAGE_KEYS ?? '').split(',');
let records = 0;
/** A usage-sized item under a key of its own, as each request's record is. */
const usageItem = () =>
  JSON.stringify({
    TableName: process.env.RELAY_FLOOR_USAGE_TABLE,
    Item: {
      [partitionKey]: { S: 'account#relay-floor' },
      [sortKey]: { S: `${Date.now()}#${(records += 1)}` },
      record: { S: 'u'.repeat(1300) },
    },
  });
const logLine = `${JSON.stringify({ level: 'info', message: 'request', fields: 'f'.repeat(1200) })}\n`;
const usageLine = () =>
  `${JSON.stringify({ level: 'info', message: 'usage record', event: 'usage_record', usage: { requestId: `req-${(records += 1)}`, record: 'u'.repeat(400) } })}\n`;
const deliversByLog = process.env.RELAY_FLOOR_USAGE_DELIVERY === 'log';

export const handler = awslambda.streamifyResponse(async (event, responseStream) => {
  const body = JSON.parse(event.body);
  const answer = await post(`${process.env.RELAY_FLOOR_UPSTREAM}/chat/completions`, JSON.stringify(body), {
    authorization: 'Bearer sk-relay-floor',
  });
  const stream = awslambda.HttpResponseStream.from(responseStream, {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
  });
  stream.write('');
  await new Promise((resolve) => stream.end(answer, resolve));
  if (deliversByLog) process.stdout.write(usageLine());
  else
    await post(process.env.DYNAMODB_ENDPOINT, usageItem(), { 'x-amz-target': 'DynamoDB_20120810.PutItem' }).catch(
      () => undefined,
    );
  process.stdout.write(logLine);
});
