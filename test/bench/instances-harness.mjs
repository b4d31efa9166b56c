/**
 * The chat bundle's streaming handler called as a multi-concurrency runtime calls it, many invocations
 * at once in one process, without the runtime interface client in between (`lambda-instances.ts` runs it
 * in its cgroup). `awslambda.streamifyResponse` and `HttpResponseStream.from` stand in for the runtime's;
 * each response stream is a Writable that counts the events it is given.
 *
 * Arguments: the bundle's path and a JSON file of `{ warmUp: event[], streams: event[], rampMs, windowMs }`.
 * It writes one line per phase to stdout, which the bench reads the cgroup at:
 * `idle`, `window-start <events>`, `window-end <events>`, `done <errors> <first error>`.
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';

const [bundle, plan] = process.argv.slice(2);
const { warmUp, streams, rampMs, windowMs } = JSON.parse(readFileSync(plan, 'utf8'));

globalThis.awslambda = {
  streamifyResponse: (handler) => handler,
  HttpResponseStream: {
    from: (stream, prelude) => {
      stream.prelude = prelude;
      return stream;
    },
  },
};

/** Server-sent events written, over every stream: each starts with `data:`. */
let events = 0;
const DATA = Buffer.from('data:');
class CountingStream extends Writable {
  prelude = undefined;
  _write(chunk, _encoding, callback) {
    for (let at = chunk.indexOf(DATA); at >= 0; at = chunk.indexOf(DATA, at + DATA.length)) events += 1;
    callback();
  }
}

const { handler } = await import(pathToFileURL(bundle).href);
let errors = 0;
let firstError = '';
const invoke = async (event, index) => {
  const stream = new CountingStream();
  const context = {
    awsRequestId: `instances-${index}`,
    functionName: 'model-gateway-chat',
    getRemainingTimeInMillis: () => 900_000,
    callbackWaitsForEmptyEventLoop: false,
  };
  try {
    await handler(event, stream, context);
    if (stream.prelude?.statusCode !== 200) throw new Error(`status ${stream.prelude?.statusCode}`);
  } catch (error) {
    errors += 1;
    firstError ||= String(error);
  }
};

const say = (line) => new Promise((resolve) => process.stdout.write(`${line}\n`, resolve));

for (const round of warmUp) await Promise.all(round.map(invoke));
await sleep(2000);
await say('idle');
const started = performance.now();
const running = [];
for (const [index, event] of streams.entries()) {
  running.push(invoke(event, index));
  const due = started + ((index + 1) * rampMs) / streams.length;
  if (due > performance.now()) await sleep(due - performance.now());
}
await sleep(1000);
await say(`window-start ${events}`);
await sleep(windowMs);
await say(`window-end ${events}`);
await Promise.all(running);
await say(`done ${errors} ${firstError}`);
process.exit(0);
