/**
 * How log lines are written: `json` (one JSON object a line, what CloudWatch Logs Insights reads) or
 * `text` (one short line a person reads in a terminal). `GATEWAY_LOG_FORMAT` decides; without it the
 * lines are JSON, as deployed, in tests and in CI. `npm start` picks `text` when its standard output
 * is a terminal and nothing was set.
 */
export type LogFormat = 'json' | 'text';

export const logFormat = (): LogFormat => (process.env.GATEWAY_LOG_FORMAT === 'text' ? 'text' : 'json');

/** `HH:MM:SS` of a time, UTC, the start of every text line. */
export const clockTime = (date: Date): string => date.toISOString().slice(11, 19);

const plainValue = (value: unknown): string => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[^\s"=]+$/.test(text) ? text : JSON.stringify(text);
};

/** `05:31:02 warn message name=value …`, the text form of any event that is not a request. */
export const textLine = (level: string, message: string, fields: Record<string, unknown>, now: Date): string =>
  [
    clockTime(now),
    level === 'info' ? '' : level,
    message,
    ...Object.entries(fields)
      .filter(([, value]) => value !== undefined)
      .map(([name, value]) => `${name}=${plainValue(value)}`),
  ]
    .filter(Boolean)
    .join(' ');
