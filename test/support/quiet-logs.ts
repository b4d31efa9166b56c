// The suite's output stays readable: the gateway's JSON lines (one per request, and the warnings that
// failover tests provoke on purpose) are off unless GATEWAY_LOG_LEVEL is set for a debugging run.
// Tests that check log lines turn them on themselves (see captured-log-lines.ts).
process.env.GATEWAY_LOG_LEVEL ??= 'silent';
