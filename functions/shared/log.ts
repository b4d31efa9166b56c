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

const write = (level: Level, message: string, fields: Record<string, unknown> = {}) => {
  if (levels[level] < threshold()) return;
  const line = redactSecrets(JSON.stringify({ level, time: new Date().toISOString(), message, ...fields }));
  if (level === 'error' || level === 'warn') process.stderr.write(`${line}\n`);
  else process.stdout.write(`${line}\n`);
};

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write('debug', message, fields),
  info: (message: string, fields?: Record<string, unknown>) => write('info', message, fields),
  warn: (message: string, fields?: Record<string, unknown>) => write('warn', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('error', message, fields),
};
