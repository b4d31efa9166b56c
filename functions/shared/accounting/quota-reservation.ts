import { PROMPT_OVERHEAD_TOKENS, promptTokenBound } from './prompt-token-bound.js';

/**
 * Output tokens reserved on the quota for a request that sets no maximum: the cap most models apply
 * by default, or below. (The rate-limit windows charge the smaller `DEFAULT_OUTPUT_TOKEN_ESTIMATE`,
 * since they are corrected a minute later anyway; the quota must cover the worst case.)
 */
export const DEFAULT_OUTPUT_TOKEN_CAP = 32_768;

/** An estimate of about four UTF-8 bytes a token times four is at least the bytes of the text it came from. */
const BYTES_PER_ESTIMATED_TOKEN = 4;

/** The parts of an admission's input (`AdmissionInput`) that size its reservation. */
export interface ReservationInput {
  readonly promptTokens: number;
  readonly maxOutputTokens?: number | null;
  readonly request?: unknown;
  readonly choices?: number | null;
}

/**
 * The tokens a request reserves on its account's quota: an upper bound of what the upstream can
 * report, never an estimate.
 *
 * The quota's invariant (DESIGN §5), per account, at every moment:
 *
 *   used ≤ committed = used + (reservations still open) ≤ limit
 *
 * Admission adds a reservation to `committed` only if the sum stays within the limit (one conditional
 * update), and settlement replaces it with the real cost. The real cost of a request is at most its
 * reservation, because its prompt tokens are at most `promptTokenBound(request)` (for any text: no
 * tokenizer yields more tokens than UTF-8 bytes) and its completion tokens at most the output
 * allowance the upstream enforces (`max_tokens`, `max_output_tokens`…, or the default cap, for each
 * of the `n` answers asked for). So
 * settling never raises `committed`, and however many requests run at once, spending never passes
 * the limit plus the reservations still open; once all have settled, never the limit.
 */
export const quotaReservationTokens = (input: ReservationInput): { promptTokens: number; completionTokens: number } => {
  const prompt =
    input.request === undefined
      ? PROMPT_OVERHEAD_TOKENS + BYTES_PER_ESTIMATED_TOKEN * Math.max(0, Math.ceil(input.promptTokens))
      : promptTokenBound(input.request);
  const output = (input.maxOutputTokens ?? DEFAULT_OUTPUT_TOKEN_CAP) * Math.max(1, Math.ceil(input.choices ?? 1));
  return { promptTokens: prompt, completionTokens: Math.max(0, Math.ceil(output)) };
};
