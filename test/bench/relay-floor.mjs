/**
 * The least a relaying function can do, run by `bench:lambda` beside the chat function: read the
 * event, post its body to the upstream (`RELAY_FLOOR_UPSTREAM`), stream the answer back, post a
 * usage-sized item to the store (`DYNAMODB_ENDPOINT`, unsigned: only the I/O counts) and write a
 * request-sized log line. Its CPU beyond hello's is what the sandbox charges any relay for that I/O;
 * the chat function's beyond the floor's is the gateway's own work.
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

const usageItem = JSON.stringify({ TableName: 'usage', Item: { record: { S: 'u'.repeat(1300) } } });
const logLine = `${JSON.stringify({ level: 'info', message: 'request', fields: 'f'.repeat(1200) })}\n`;

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
  await post(process.env.DYNAMODB_ENDPOINT, usageItem, { 'x-amz-target': 'DynamoDB_20120810.PutItem' }).catch(
    () => undefined,
  );
  process.stdout.write(logLine);
});
