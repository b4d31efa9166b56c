import base from './jest.config.js';

/**
 * `npm run test:stage`: the integration cases against the gateway at GATEWAY_URL (a separately
 * started `npm start` or a deployed stage), one file at a time, since they share that gateway.
 */
if (!process.env.GATEWAY_URL || !process.env.GATEWAY_ADMIN_KEY) {
  throw new Error(
    'npm run test:stage needs GATEWAY_URL and GATEWAY_ADMIN_KEY (the gateway to test and an admin key of it).',
  );
}

/**
 * Files that check the gateway's own process rather than what it answers, so only the in-process run
 * can hold them: its store (writes counted or throttled through its client, items read directly), its
 * log lines, its process lifecycle (they start gateways of their own), and a gateway with no channel
 * but the built-in one, which a shared stage never is.
 */
const inProcessOnly = [
  'cache-single-flight', // counts the store calls the gateway's own client makes
  'scale-write-spread', // counts writes per partition key through the gateway's store client
  'sliced-budget', // drives the sharded budgets through the store client directly
  'store-throttling', // injects throttling into the gateway's store client
  'usage-query-list', // calls the usage query module directly
  'limits-quota-bound', // reads the spend shards from the store, once the local runtime's invocations end
  'request-log-and-metrics', // reads the gateway's log lines
  'usage-log-delivery', // reads the gateway's log lines, and runs the usage writer on them
  'fuzz-every-route', // also reads the gateway's log lines for secrets
  'health-store', // stops the gateway's store
  'lifecycle-refusals', // starts and kills gateways of its own
  'lifecycle-signals', // starts and signals gateways of its own
  'built-in-demo-channel', // needs a gateway whose only channel is the built-in one
  'store-calls-per-request', // counts the AWS calls of the functions in the test's process
  'bookkeeping-after-waiting-io', // watches the store calls of the test's process
  'concurrent-invocations', // waits on the local runtime's invocation-end events
  'console-operator-views', // waits on the local runtime's invocation-end events
  'upstream-host-policy', // sets the host policy in the environment of the functions in this process
  'cursor-secret', // points the functions in this process at a fake Secrets Manager
  'console-sso', // runs the console in Cognito mode against a fake Cognito, through this process's environment
  'console-cognito-mfa', // the same, for the TOTP steps
];

/**
 * Files whose fakes are of the test's own making (routes written in the test), so the fake runs in
 * the test's process: only a gateway on this machine can reach it. Every other fake runs wherever
 * GATEWAY_FAKE_UPSTREAM_URL says.
 */
const fakeInTestProcess = [
  'lambda-payload-limits', // answers with bodies of its own making, sized against Lambda's limit
  'stream-pass-through', // holds each upstream event until the test releases it, and counts sockets
  'provider-registry', // a fake per channel type, started in the test
  'gemini-embeddings', // its Gemini fake is started in the test
];

const loopback = new Set(['127.0.0.1', 'localhost', '[::1]']);
const gatewayOnThisMachine = loopback.has(new URL(process.env.GATEWAY_URL).hostname);
if (!gatewayOnThisMachine && !process.env.GATEWAY_FAKE_UPSTREAM_URL) {
  throw new Error(
    'A gateway on another machine cannot reach fakes in this process: set GATEWAY_FAKE_UPSTREAM_URL and GATEWAY_FAKE_UPSTREAM_TOKEN (the fixtures stack, docs/ci.md).',
  );
}

const skipped = [...inProcessOnly, ...(gatewayOnThisMachine ? [] : fakeInTestProcess)];

export default {
  ...base,
  testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', ...skipped.map((name) => `/test/integration/${name}\\.test\\.ts$`)],
  maxWorkers: 1,
  testTimeout: 60000,
};
