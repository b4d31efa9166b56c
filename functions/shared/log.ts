import { writeSync } from 'node:fs';
import { logFormat, textLine } from './log-format.js';
import { redactSecrets } from './security/redact-secrets.js';

/**
 * One JSON line per event, the format CloudWatch Logs Insights reads (or one short text line in a
 * terminal: `log-format.ts`). Callers pass ids and prefixes,
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
  if (logFormat() === 'text') {
    writeLine(level, redactSecrets(textLine(level, message, fields, new Date())));
    return;
  }
  const scanned = redactSecrets(JSON.stringify({ level, time: new Date().toISOString(), message, ...fields }));
  writeLine(level, serializedMembers ? `{${serializedMembers},${scanned.slice(1)}` : scanned);
};

const writeLine = (level: Level, line: string) => {
  if (level === 'error' || level === 'warn') process.stderr.write(`${line}\n`);
  else writeOut(`${line}\n`);
};

/**
 * A line already in the text format (a request's short line), written only when lines are text; the
 * text is scanned for credentials like every field.
 */
const text = (line: string) => {
  if (levels.info < threshold()) return;
  writeLine('info', redactSecrets(line));
};

/** False once a direct write to standard output could not take a whole line: the stream has it from then on. */
let writingDirectly = true;

/**
 * A line to standard output, in one system call: `process.stdout`'s stream machinery cost about 4 %
 * of a request's CPU, a line being written on every request. On Linux that stream writes at once
 * anyway (files, pipes and terminals alike), so lines keep their order with whatever else writes to it.
 * Where standard output is a non-blocking pipe that is full, the call fails or takes part of the line:
 * the rest, and every line after it, then goes through the stream, which queues what the pipe cannot
 * take yet. A stream whose `write` was replaced (a test capturing lines) gets every line.
 */
const writeOut = (text: string): void => {
  if (!writingDirectly || Object.hasOwn(process.stdout, 'write')) {
    process.stdout.write(text);
    return;
  }
  let written = 0;
  try {
    written = writeSync(1, text);
  } catch {
    // EAGAIN from a full pipe, or an output that is gone: the stream decides what to do about it.
  }
  if (written === Buffer.byteLength(text)) return;
  writingDirectly = false;
  process.stdout.write(written === 0 ? text : Buffer.from(text).subarray(written));
};

/**
 * A line that carries data the stack stores from the log (a usage record, usage-delivery.ts): written
 * whatever the level and the format, as losing it would lose the data. The caller builds it from the
 * gateway's own ids and numbers and scans what came from outside.
 */
const record = (line: string) => writeOut(`${line}\n`);

export const log = {
  debug: (message: string, fields?: Record<string, unknown>) => write('debug', message, fields),
  info: (message: string, fields?: Record<string, unknown>, serializedMembers?: string) =>
    write('info', message, fields, serializedMembers),
  warn: (message: string, fields?: Record<string, unknown>) => write('warn', message, fields),
  error: (message: string, fields?: Record<string, unknown>) => write('error', message, fields),
  text,
  record,
};
