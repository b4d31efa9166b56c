/** The variable that sets how many days an audit record is kept; `-c auditRetentionDays` deployed. */
export const AUDIT_RETENTION_VARIABLE = 'GATEWAY_AUDIT_RETENTION_DAYS';

export const DEFAULT_AUDIT_RETENTION_DAYS = 365;

const DAY_MS = 86_400_000;

let retentionDays: number | undefined;

/**
 * How long an audit record is kept, in days: read once per process (a function's environment is fixed
 * at its start). A value that is not a positive integer falls back to the default rather than
 * keeping records for no time at all.
 */
export const auditRetentionDays = (): number => {
  if (retentionDays === undefined) {
    const configured = Number(process.env[AUDIT_RETENTION_VARIABLE]);
    retentionDays = Number.isInteger(configured) && configured > 0 ? configured : DEFAULT_AUDIT_RETENTION_DAYS;
  }
  return retentionDays;
};

/** The epoch second at which DynamoDB's TTL may delete a record made at `atMs`. */
export const auditExpiry = (atMs: number): number => Math.ceil((atMs + auditRetentionDays() * DAY_MS) / 1000);

/** The oldest time a record can still be kept from, at `nowMs`. */
export const auditRetainedSince = (nowMs: number): number => nowMs - auditRetentionDays() * DAY_MS;

/** Forgets the cached setting (tests that change it). */
export const resetAuditRetention = (): void => {
  retentionDays = undefined;
};
