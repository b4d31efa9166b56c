import fc from 'fast-check';
import { SignInLimits } from '../../functions/shared/console/sign-in-limits.js';
import type { GatewayError } from '../../functions/shared/errors.js';

const settings = () => ({ perUser: 3, perAddress: 5, windowMs: 60_000 });

const refusal = (action: () => void): GatewayError | undefined => {
  try {
    action();
    return undefined;
  } catch (error) {
    return error as GatewayError;
  }
};

describe('console sign-in attempt limits', () => {
  it('lock a user out after their failures fill the window, with 429 and the wait in Retry-After', () => {
    let now = 0;
    const limits = new SignInLimits(settings, () => now);
    for (const at of [0, 10_000, 20_000]) {
      now = at;
      expect(refusal(() => limits.assertAllowed('alice@example.com', `10.0.0.${at / 10_000}`))).toBeUndefined();
      limits.recordFailure('alice@example.com', `10.0.0.${at / 10_000}`);
    }
    now = 30_000;
    const locked = refusal(() => limits.assertAllowed('alice@example.com', '192.0.2.1'));
    expect(locked).toMatchObject({ status: 429, code: 'rate_limit_exceeded', headers: { 'retry-after': '30' } });
    // Another user from the same addresses is not locked out by alice's count.
    expect(refusal(() => limits.assertAllowed('bob@example.com', '10.0.0.0'))).toBeUndefined();
    // Once the oldest failure leaves the window, one more attempt is allowed.
    now = 60_000;
    expect(refusal(() => limits.assertAllowed('alice@example.com', '192.0.2.1'))).toBeUndefined();
  });

  it('lock an address out after failures against any users, and a success does not clear it', () => {
    let now = 0;
    const limits = new SignInLimits(settings, () => now);
    for (let index = 0; index < 5; index += 1) limits.recordFailure(`user${index}@example.com`, '198.51.100.7');
    limits.recordSuccess('user0@example.com');
    now = 1_000;
    expect(refusal(() => limits.assertAllowed('new@example.com', '198.51.100.7'))?.headers['retry-after']).toBe('59');
    expect(refusal(() => limits.assertAllowed('new@example.com', '198.51.100.8'))).toBeUndefined();
  });

  it('clear a user count on success', () => {
    const limits = new SignInLimits(settings, () => 0);
    limits.recordFailure('alice@example.com', undefined);
    limits.recordFailure('alice@example.com', undefined);
    limits.recordSuccess('alice@example.com');
    limits.recordFailure('alice@example.com', undefined);
    limits.recordFailure('alice@example.com', undefined);
    expect(refusal(() => limits.assertAllowed('alice@example.com', undefined))).toBeUndefined();
  });

  it('never admit more failures in any window than the limit, whatever their timing', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 5_000 }), { maxLength: 60 }), (gaps) => {
        let now = 0;
        const limits = new SignInLimits(settings, () => now);
        const admitted: number[] = [];
        for (const gap of gaps) {
          now += gap;
          if (refusal(() => limits.assertAllowed('alice@example.com', undefined))) continue;
          admitted.push(now);
          limits.recordFailure('alice@example.com', undefined);
        }
        // Any 3 + 1 consecutive admitted failures span more than the window.
        for (let index = 3; index < admitted.length; index += 1)
          expect(admitted[index]! - admitted[index - 3]!).toBeGreaterThanOrEqual(60_000);
      }),
    );
  });
});
