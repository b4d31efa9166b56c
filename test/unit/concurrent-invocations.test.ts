import {
  CONCURRENT_INVOCATIONS_VARIABLE,
  servesConcurrentInvocations,
} from '../../functions/shared/aws/concurrent-invocations.js';

/** What decides whether work may wait for other invocations' work: Lambda's own word, or the local runtime's. */

const withEnvironment = (values: Record<string, string | undefined>, check: () => void) => {
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  try {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    check();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
};

describe('servesConcurrentInvocations', () => {
  test.each([
    ['Lambda default compute (no concurrency variable)', undefined, undefined, false],
    ['Lambda with a concurrency of one', '1', undefined, false],
    ['Lambda Managed Instances', '64', undefined, true],
    ['the local runtime', undefined, 'true', true],
    ['a mark that is not "true"', undefined, '1', false],
  ])('%s', (_, maxConcurrency, mark, expected) => {
    withEnvironment({ AWS_LAMBDA_MAX_CONCURRENCY: maxConcurrency, [CONCURRENT_INVOCATIONS_VARIABLE]: mark }, () =>
      expect(servesConcurrentInvocations()).toBe(expected),
    );
  });
});
