import fc from 'fast-check';
import { log } from '../../functions/shared/log.js';
import { rememberSecret } from '../../functions/shared/security/redact-secrets.js';
import { captureProcessOutput, expectNoSecretIn } from '../support/secret-assertions.js';

/** Whatever a caller passes to the logger, the line written holds no credential and stays JSON. */

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const token = (minLength: number, maxLength: number) =>
  fc.array(fc.constantFrom(...`${BASE62}+/=_-`.split('')), { minLength, maxLength }).map((list) => list.join(''));

test('a remembered upstream key, in any field of any level, never reaches the written line', () => {
  fc.assert(
    fc.property(
      token(16, 64),
      fc.constantFrom('debug', 'info', 'warn', 'error') as fc.Arbitrary<keyof typeof log>,
      fc.string(),
      (key, level, around) => {
        rememberSecret(key);
        const previousLevel = process.env.GATEWAY_LOG_LEVEL;
        process.env.GATEWAY_LOG_LEVEL = 'debug';
        const output = captureProcessOutput();
        try {
          log[level](`upstream said ${around}${key}`, {
            error: { detail: `x-api-key: ${key}`, nested: [around, key] },
          });
        } finally {
          output.stop();
          if (previousLevel === undefined) delete process.env.GATEWAY_LOG_LEVEL;
          else process.env.GATEWAY_LOG_LEVEL = previousLevel;
        }

        const line = output.text();
        expect(line.endsWith('\n')).toBe(true);
        expect(JSON.parse(line)).toMatchObject({ level });
        expectNoSecretIn(line, [{ name: 'the key', value: key }], 'the log line');
      },
    ),
    { numRuns: 200 },
  );
});

test('a gateway key and an authorization header logged by mistake show only the key prefix', () => {
  const key = `sk-${BASE62}`;
  const output = captureProcessOutput();
  try {
    log.info('request', { headers: { authorization: `Bearer ${key}` }, note: `key ${key}` });
  } finally {
    output.stop();
  }

  expectNoSecretIn(output.text(), [{ name: 'the gateway key', value: key, visiblePrefix: 10 }], 'the log line');
  expect(output.text()).toContain(key.slice(0, 10));
});
