import { redactSecrets } from './security/redact-secrets.js';

/**
 * One JSON line per event, the format CloudWatch Logs Insights reads. Callers pass ids and prefixes,
 * never a key or a request body; every line is still scrubbed of credentials before it is written.
 */
type Level = 'debug' | 'info' | 'warn' | 'error';

// `silent` is only a threshold (no line has it): nothing is written, as in the test suite.
const levels: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 50 };

const threshold = () =>
  levels[(process.env.GATEWAY_LOG_LEVEL as Level | 'silent' | undefined) ?? 'info'] ?? levels.info;

/**
 * `serializedMembers`: JSON members the gateway built from its own constants, ids and numbers (the
 * metrics directives and the figures of a request line), put in as they are. Only what callers pass
 * as fields can hold a secret, and scanning the gateway's own text would cost more than the rest of
 * the line.
 */
const write = (level: Level, message: string, fields: Record<string, unknown> = {}, serializedMembers?: string) => {
  if (levels[level] < threshold()) return;
  const scanned = redactSecrets(JSON.stringify({ level, time: new Date().toISOString(), message, ...fields }));
  const line = serializedMembers ? `{${serializedMembers},${scanned.slice(1)}` : scanned;
  if (level === 'error' || level === 'warn') process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
};

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write('debug', message, fields),
  info: (message: string, fields?: Record<string, unknown>, serializedMembers?: string) =>
    write('info', message, fields, serializedMembers),
  warn: (message: string, fields?: Record<string, unknown>) => write('warn', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('error', message, fields),
};
