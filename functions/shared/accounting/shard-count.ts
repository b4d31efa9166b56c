/**
 * How many items a hot budget is spread over. DynamoDB takes about 1,000 writes per second on one
 * partition key; a budget that every request of a busy account writes is split into slices, one item
 * each, so that no item takes more than a few hundred writes per second at the budget's own limit.
 *
 * A budget small enough for one item stays on one item, which keeps it exact: below
 * `EXACT_REQUESTS_PER_SECOND` nothing is sharded at all.
 */

/** Up to this many requests per second a request window stays one item (one write per request). */
export const EXACT_REQUESTS_PER_SECOND = 300;

/** What one slice of a sharded request window takes at the limit, in requests per second. */
const REQUESTS_PER_SECOND_PER_SHARD = 100;

/**
 * Tokens per minute that one slice of a token window holds. A request writes its token windows twice
 * (charge, then correction), so at ~100 tokens a request one slice sees about 330 writes per second.
 */
const TOKENS_PER_MINUTE_PER_SHARD = 1_000_000;

/** A budget is never split over more items than one BatchGetItem reads (100 keys). */
export const MAX_SHARDS = 100;

const clamp = (shards: number): number => Math.min(MAX_SHARDS, Math.max(1, Math.ceil(shards)));

/** Shards of a requests-per-minute window: one up to 300 requests/s, then one per 100 requests/s. */
export const requestWindowShards = (rpm: number): number => {
  const perSecond = rpm / 60;
  return perSecond <= EXACT_REQUESTS_PER_SECOND ? 1 : clamp(perSecond / REQUESTS_PER_SECOND_PER_SHARD);
};

/**
 * Shards of a tokens-per-minute window: one per million tokens a minute, and at least as many as the
 * owner's request window (its request rate bounds how often the token window is written).
 */
export const tokenWindowShards = (tpm: number, rpm?: number): number =>
  Math.max(clamp(tpm / TOKENS_PER_MINUTE_PER_SHARD), rpm ? requestWindowShards(rpm) : 1);

/** Writes per second one slice of an account's spend takes at its RPM limit. */
const SPEND_WRITES_PER_SECOND_PER_SHARD = 250;

/**
 * Shards of an account's spend. Each request writes it twice (reserve, settle), so one item serves up
 * to 150 requests per second. The request rate is only known from the account's RPM limit: an account
 * without one keeps one item unless the deployment sets a floor (`GATEWAY_SPEND_SHARDS`), which quota
 * accounts that send more than ~150 requests per second without an RPM limit need.
 */
export const spendShards = (accountRpm: number | undefined): number => {
  const configured = Number(process.env.GATEWAY_SPEND_SHARDS ?? 1);
  const floor = Number.isFinite(configured) ? clamp(configured) : 1;
  const writesPerSecond = accountRpm ? (accountRpm / 60) * 2 : 0;
  const fromRate =
    writesPerSecond <= EXACT_REQUESTS_PER_SECOND ? 1 : clamp(writesPerSecond / SPEND_WRITES_PER_SECOND_PER_SHARD);
  return Math.max(fromRate, floor);
};
