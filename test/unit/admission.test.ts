import { randomUUID } from 'node:crypto';
import { admit, type AdmissionInput } from '../../functions/shared/accounting/admission.js';
import type { Principal } from '../../functions/shared/auth/principal.js';
import { GatewayError } from '../../functions/shared/errors.js';
import { createAccount } from '../../functions/shared/store/accounts.js';
import { useInMemoryStore } from '../support/in-memory-store.js';

/**
 * Admission on its own, against a real (in-memory) store: what it lets through, the headers it gives,
 * and how it refuses. Each case uses an account of its own, so their windows never meet.
 */

useInMemoryStore();

const principalOf = (overrides: Partial<Principal> = {}): Principal => ({
  keyId: `key_${randomUUID()}`,
  keyPrefix: 'sk-test',
  accountId: `acct_${randomUUID()}`,
  role: 'user',
  expiresAt: null,
  accountModels: null,
  keyModels: null,
  keyRateLimit: null,
  accountRateLimit: null,
  quotaLimit: null,
  ...overrides,
});

const input = (overrides: Partial<AdmissionInput> = {}): AdmissionInput => ({
  model: { id: 'admission-model', pricing: null },
  promptTokens: 10,
  maxOutputTokens: 10,
  ...overrides,
});

/** The refusal `admit` rejects with (the test fails if it lets the request through). */
const refusalOf = async (principal: Principal, request: AdmissionInput): Promise<GatewayError> => {
  const outcome = await admit(principal, request).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(GatewayError);
  return outcome as GatewayError;
};

/**
 * Rate-limit windows are calendar minutes: a case that needs several requests in one window starts
 * with enough of the minute left (the clock is the very thing under test here).
 */
const awayFromMinuteEdge = async (neededMs = 5000): Promise<void> => {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < neededMs) await new Promise((resolve) => setTimeout(resolve, left + 50));
};

describe('admit', () => {
  it('lets a request through without headers or reservation when neither limits nor quota apply', async () => {
    const admission = await admit(principalOf(), input());

    expect(admission).toMatchObject({ headers: {}, reservedCost: 0, estimatedTokens: 20, settlesCharges: false });
    await expect(admission.settle(undefined)).resolves.toMatchObject({ cost: 0 });
  });

  it('counts requests per minute on the key, says what is left, and refuses the one past the limit', async () => {
    const principal = principalOf({ keyRateLimit: { rpm: 2 } });
    await awayFromMinuteEdge();

    const first = await admit(principal, input());
    const second = await admit(principal, input());
    const refusal = await refusalOf(principal, input());

    expect(first.headers['x-ratelimit-limit-requests']).toBe('2');
    expect(first.headers['x-ratelimit-remaining-requests']).toBe('1');
    expect(second.headers['x-ratelimit-remaining-requests']).toBe('0');
    expect(refusal).toMatchObject({ status: 429, type: 'requests' });
    // A request count is final when charged: nothing to correct after the answer.
    expect(first.settlesCharges).toBe(false);
  });

  it('charges tokens per minute on the estimate (prompt and output allowance) and refuses past the limit', async () => {
    const principal = principalOf({ accountRateLimit: { tpm: 100 } });
    await awayFromMinuteEdge();

    const admitted = await admit(principal, input({ promptTokens: 30, maxOutputTokens: 30 }));
    const refusal = await refusalOf(principal, input({ promptTokens: 30, maxOutputTokens: 30 }));
    // Charged on an estimate: the answer's real count corrects it.
    expect(admitted.settlesCharges).toBe(true);

    expect(refusal).toMatchObject({ status: 429, type: 'tokens' });
  });

  it('reserves on the quota, settles at the real cost, and refuses once the quota is spent', async () => {
    const accountId = `acct_${randomUUID()}`;
    const now = new Date().toISOString();
    await createAccount({
      id: accountId,
      name: 'admission quota',
      models: null,
      quota: { limit: 1, used: 0 },
      rateLimit: null,
      status: 'active',
      createdAt: now,
      updatedAt: now,
    });
    const principal = principalOf({ accountId, quotaLimit: 1 });
    // A tenth of a cent a token: the reservation (a bound on a small request) fits in the $1 quota.
    const priced = input({
      model: { id: 'priced', pricing: { inputPerMTok: 1000, outputPerMTok: 1000 } },
      promptTokens: 2,
      maxOutputTokens: 2,
    });

    const admission = await admit(principal, priced);
    expect(admission.reservedCost).toBeGreaterThan(0);
    expect(admission.settlesCharges).toBe(true);
    // The upstream reports a thousand tokens: the whole quota, spent.
    const settled = await admission.settle({ promptTokens: 600, completionTokens: 400, totalTokens: 1000 });
    expect(settled.cost).toBeCloseTo(1, 10);

    const refusal = await refusalOf(principal, priced);
    expect(refusal).toMatchObject({ status: 429, type: 'insufficient_quota', code: 'insufficient_quota' });
  });
});
