import type { Principal } from '../auth/principal.js';
import { GatewayError } from '../errors.js';
import { log } from '../log.js';
import { promiseOf } from '../promise-of.js';
import type { RateLimitSettings } from '../store/accounts.js';
import type { ModelPricing } from '../store/models.js';
import { type PricedUsage, usageCost } from './pricing.js';
import { quotaReservationTokens } from './quota-reservation.js';
import { periodAdjective, budgetNow, periodEnd } from './budget-period.js';
import { noteSpending } from './budget-alerts.js';
import { quotaAsBudget, type CoveringBudget } from './budgets.js';
import { reserveBudget, settleBudget, type BudgetReservation } from './quota.js';
import { formatResetDuration, rateLimitHeaders } from './rate-limit-headers.js';
import {
  adjustWindow,
  chargeWindow,
  WINDOW_MS,
  windowStartOf,
  type LimitScope,
  type WindowCharge,
  type WindowResult,
} from './rate-limit-window.js';

/** Completion tokens assumed for a request that sets no maximum, in its TPM charge (the quota reserves `DEFAULT_OUTPUT_TOKEN_CAP`). */
export const DEFAULT_OUTPUT_TOKEN_ESTIMATE = 256;

/** What an endpoint tells admission about the request it is about to relay. */
export interface AdmissionInput {
  /** The public model: its effective pricing (if any) prices the reservation and the settlement. */
  readonly model: { readonly id: string; readonly pricing: ModelPricing | null };
  /** Input tokens, counted or estimated (`estimateTokens`) from the request body. */
  readonly promptTokens: number;
  /**
   * The most output the request may produce (`max_tokens`, `max_output_tokens`…); `null` or absent
   * assumes `DEFAULT_OUTPUT_TOKEN_ESTIMATE`. Endpoints without generated tokens (embeddings) pass 0.
   */
  readonly maxOutputTokens?: number | null;
  /**
   * The request body as parsed from the client: the quota reserves on an upper bound of its prompt
   * tokens (`promptTokenBound`), never on the estimate. Without it, four tokens per estimated token.
   */
  readonly request?: unknown;
  /** How many answers the request asks for (`n`): the output allowance holds for each. */
  readonly choices?: number | null;
}

/** A request let through: headers for its response, and the settlement to run once it has ended. */
export interface Admission {
  /** `x-ratelimit-*` headers to put on the response (empty when neither key nor account has limits). */
  readonly headers: Readonly<Record<string, string>>;
  /** The tokens charged to TPM windows now: prompt + maximum output. */
  readonly estimatedTokens: number;
  /** USD reserved on each budget that covers the request (0 without a budget). */
  readonly reservedCost: number;
  /**
   * Whether settling has anything to write: token windows to correct or a quota reservation to settle.
   * Without, `settle` only prices the usage, and what waits on a request's record need not wait on it.
   */
  readonly settlesCharges: boolean;
  /**
   * Corrects the token windows by (actual − estimate), turns the quota reservation into the real cost,
   * and returns that cost. Runs once; later calls return the first result. Call it through
   * `request.defer` (the request meter does), never on the client's critical path.
   */
  settle(usage: (PricedUsage & { readonly totalTokens?: number }) | undefined): Promise<{ readonly cost: number }>;
}

/**
 * What a reservation of `tokens` costs at most: the prompt at the dearer of the input and cached-input
 * prices, so that no split between cached and uncached tokens can cost more than was reserved.
 */
const reservationCost = (
  pricing: ModelPricing | null | undefined,
  tokens: { promptTokens: number; completionTokens: number },
) =>
  usageCost(pricing, {
    ...tokens,
    ...dearestPromptPrice(pricing, tokens.promptTokens),
  });

/**
 * The prompt priced as whichever kind of prompt token the model prices highest. A cache write is
 * counted only at a price the model sets itself: the default write price applies to writes an
 * upstream reports, which happen only for prompts that ask for caching.
 */
const dearestPromptPrice = (pricing: ModelPricing | null | undefined, promptTokens: number) => {
  const input = pricing?.inputPerMTok ?? 0;
  const cached = pricing?.cachedInputPerMTok ?? 0;
  const written = pricing?.cacheWritePerMTok ?? 0;
  if (written > input && written >= cached) return { cacheWriteTokens: promptTokens };
  return { cachedTokens: cached > input ? promptTokens : 0 };
};

const limitOwners = (principal: Principal): [LimitScope, string, RateLimitSettings | null][] => [
  ['key', principal.keyId, principal.keyRateLimit],
  ['account', principal.accountId, principal.accountRateLimit],
];

const windowCharges = (principal: Principal, estimatedTokens: number, windowStart: number): WindowCharge[] => {
  const charges: WindowCharge[] = [];
  for (const [scope, ownerId, limits] of limitOwners(principal)) {
    if (limits?.rpm) charges.push({ dimension: 'requests', scope, ownerId, limit: limits.rpm, amount: 1, windowStart });
    if (limits?.tpm) {
      charges.push({
        dimension: 'tokens',
        scope,
        ownerId,
        limit: limits.tpm,
        amount: estimatedTokens,
        windowStart,
        requestLimit: limits.rpm,
      });
    }
  }
  return charges;
};

const rateLimitRefusal = (refused: WindowResult, results: readonly WindowResult[], now: number): GatewayError => {
  const { dimension, scope, limit, amount, windowStart } = refused.charge;
  const waitMs = windowStart + WINDOW_MS - now;
  const unit = dimension === 'requests' ? 'requests per minute (RPM)' : 'tokens per minute (TPM)';
  const tooLarge = dimension === 'tokens' && amount > limit;
  const message = tooLarge
    ? `Request too large for ${unit} on this ${scope}: Limit ${limit}, Requested ${amount}. ` +
      'Reduce the prompt or max_tokens.'
    : `Rate limit reached for ${unit} on this ${scope}: Limit ${limit}, Used ${refused.count}, Requested ${amount}. ` +
      `Please try again in ${formatResetDuration(waitMs)}.`;
  return new GatewayError(message, {
    status: 429,
    type: dimension,
    code: 'rate_limit_exceeded',
    headers: { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))), ...rateLimitHeaders(results, now) },
  });
};

const LEVEL_NAMES = { key: 'API key', member: 'member', account: 'account' } as const;

const budgetRefusal = (
  refused: Extract<BudgetReservation, { granted: false }>,
  at: number,
  headers: Record<string, string>,
) => {
  const { budget, limit, committed } = refused;
  const resets = periodEnd(budget.period, at);
  const when =
    resets === null
      ? 'A total budget does not reset: ask an administrator to raise it.'
      : `It resets at ${new Date(resets).toISOString()}.`;
  return new GatewayError(
    `You exceeded your current quota: the ${LEVEL_NAMES[budget.level]}'s ${periodAdjective(budget.period)} budget ` +
      `of $${limit} cannot hold this request ($${Math.min(committed, limit)} spent or held by requests in flight). ${when}`,
    { status: 429, type: 'insufficient_quota', code: 'insufficient_quota', headers },
  );
};

const modelNotPriced = (model: string) =>
  new GatewayError(
    `The model '${model}' has no price, and a budget covers this request. An administrator can price it with ` +
      `PUT /admin/v1/models/${model} {"pricing": {"inputPerMTok": …, "outputPerMTok": …}} ` +
      `(or gatewayctl models put ${model} --input … --output …).`,
    { status: 403, type: 'permission_error', code: 'model_not_priced', param: 'model' },
  );

/** The budgets that cover a principal's requests: its key's, its creator member's, its account's. */
export const coveringBudgets = (principal: Principal): readonly CoveringBudget[] => {
  if (principal.budgets) return principal.budgets;
  const limit = principal.quotaLimit ?? null;
  return limit === null
    ? []
    : [{ level: 'account', ownerId: principal.accountId, accountId: principal.accountId, ...quotaAsBudget(limit) }];
};

/**
 * A give-back the store refused even after its retries: the window or quota keeps the charge until it
 * expires or settles, which errs on the safe side (fewer admissions, never more); the client still gets
 * the refusal it was owed, not a 500.
 */
const giveBackFailed = (error: unknown) => log.warn('admission give-back failed', { errorName: (error as Error).name });

/** Gives back everything a refused admission had taken. */
const compensate = async (
  results: readonly WindowResult[],
  reservations: readonly BudgetReservation[],
): Promise<void> => {
  await Promise.all([
    ...results.filter((result) => result.granted).map((result) => adjustWindow(result.charge, -result.charge.amount)),
    ...reservations.map((reservation) =>
      reservation.granted && reservation.reserved > 0 ? settleBudget(reservation, 0) : undefined,
    ),
  ]);
};

type GrantedReservation = Extract<BudgetReservation, { granted: true }>;

/**
 * The settlement's writes, started now: the token windows' corrections and the quota's settlement,
 * each the promise of its batched write itself (no async function waiting on it), since an
 * invocation waiting on its record holds this chain.
 */
const settleNow = (
  principal: Principal,
  input: AdmissionInput,
  estimatedTokens: number,
  tokenWindows: readonly WindowCharge[],
  reservations: readonly GrantedReservation[],
  usage: Parameters<Admission['settle']>[0],
): Promise<{ cost: number }> => {
  const cost = usage ? usageCost(input.model.pricing, usage) : 0;
  const actualTokens = usage ? (usage.totalTokens ?? usage.promptTokens + usage.completionTokens) : 0;
  const writes: Promise<void>[] = [];
  for (const charge of tokenWindows) writes.push(adjustWindow(charge, actualTokens - estimatedTokens));
  // Without a budget there is no reservation and nothing to settle; each settled budget is then
  // looked at for the alerts its spending may have reached.
  for (const reservation of reservations) {
    writes.push(settleBudget(reservation, cost).then(() => noteSpending(reservation)));
  }
  return Promise.all(writes).then(() => ({ cost }));
};

const settleOnce = (
  principal: Principal,
  input: AdmissionInput,
  estimatedTokens: number,
  tokenWindows: readonly WindowCharge[],
  reservations: readonly GrantedReservation[],
): Admission['settle'] => {
  let settled: Promise<{ cost: number }> | undefined;
  return (usage) =>
    (settled ??= promiseOf(() => settleNow(principal, input, estimatedTokens, tokenWindows, reservations, usage)));
};

/**
 * Admits one request for a principal: charges its key's and account's per-minute windows (one request,
 * and `promptTokens + maxOutputTokens` tokens) and reserves on every budget that covers it (its key's,
 * its creator member's, its account's) the most the request can cost (`quotaReservationTokens`, which
 * states the budgets' invariant), all in parallel, so a limited request costs one synchronous round trip to the store and an unlimited
 * one none. If any of them refuses, what the others took is given back and a 429 is thrown:
 * `rate_limit_exceeded` (type `requests` or `tokens`, with `Retry-After` and the `x-ratelimit-*`
 * headers) or `insufficient_quota` naming the budget, its period and its reset. Under any budget, a model
 * without a price is a 403 `model_not_priced`.
 *
 * Every endpoint calls it the same way, after resolving the model and before calling the upstream:
 *
 * ```ts
 * const admission = await admit(request.principal, { model, promptTokens, maxOutputTokens, request: body });
 * meter.admitted(admission);              // the meter settles it when it records the request
 * return withHeaders(response, admission.headers);
 * ```
 */
export const admit = async (principal: Principal, input: AdmissionInput): Promise<Admission> => {
  const maxOutput = input.maxOutputTokens ?? DEFAULT_OUTPUT_TOKEN_ESTIMATE;
  const estimatedTokens = Math.max(0, Math.ceil(input.promptTokens)) + Math.max(0, Math.ceil(maxOutput));
  const now = Date.now();
  const charges = windowCharges(principal, estimatedTokens, windowStartOf(now));
  const budgets = coveringBudgets(principal);
  const pricing = input.model.pricing;
  // A budget cannot hold what it cannot price: an unpriced model is refused under any budget.
  if (budgets.length > 0 && !pricing) throw modelNotPriced(input.model.id);
  const reservation = budgets.length === 0 ? 0 : reservationCost(pricing, quotaReservationTokens(input));

  // Neither limits nor budgets: no store call at all.
  if (charges.length === 0 && budgets.length === 0) {
    return {
      headers: {},
      estimatedTokens,
      reservedCost: 0,
      settlesCharges: false,
      settle: settleOnce(principal, input, estimatedTokens, [], []),
    };
  }

  // Each budget's spend is sharded by the highest request rate that can reach it.
  const rpm = principal.accountRateLimit?.rpm ?? principal.keyRateLimit?.rpm;
  const at = budgetNow();
  const [windowOutcomes, budgetOutcomes] = await Promise.all([
    Promise.allSettled(charges.map(chargeWindow)),
    Promise.allSettled(budgets.map((budget) => reserveBudget(budget, at, reservation, rpm))),
  ]);
  const results = windowOutcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  const reservations = budgetOutcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
  // The store failed or stayed throttled (a 429 by then) for one charge: give back what the others
  // took, so that a throttling storm does not eat the limits, and fail the request with that error.
  const failed = [...windowOutcomes, ...budgetOutcomes].find((outcome) => outcome.status === 'rejected');
  if (failed) {
    await compensate(results, reservations).catch(giveBackFailed);
    throw failed.reason;
  }
  const headers = rateLimitHeaders(results, now);
  const refused =
    results.find((result) => !result.granted && result.charge.dimension === 'requests') ??
    results.find((result) => !result.granted);
  // Budgets in order key, member, account: the refusal names the narrowest that refused.
  const refusedBudget = reservations.find((entry) => !entry.granted);
  if (refused || refusedBudget) {
    await compensate(results, reservations).catch(giveBackFailed);
    throw refused
      ? rateLimitRefusal(refused, results, now)
      : budgetRefusal(refusedBudget as Extract<BudgetReservation, { granted: false }>, at, headers);
  }
  const granted = reservations.filter((entry): entry is GrantedReservation => entry.granted);
  // The granted charges know their shard: corrections go where the estimate was taken.
  const tokenWindows = results.map((result) => result.charge).filter((charge) => charge.dimension === 'tokens');
  return {
    headers,
    estimatedTokens,
    reservedCost: granted.length > 0 ? reservation : 0,
    settlesCharges: tokenWindows.length > 0 || granted.length > 0,
    settle: settleOnce(principal, input, estimatedTokens, tokenWindows, granted),
  };
};
