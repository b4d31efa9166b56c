/** A JSON log line as the gateway wrote it. */
export type LogLine = Record<string, unknown> & { level: string; message: string };

export interface CapturedLogLines {
  /** Every JSON line written to stdout or stderr since capture started. */
  readonly lines: readonly LogLine[];
  /** Resolves with the first line (already written or still to come) that matches. */
  next(matches: (line: LogLine) => boolean): Promise<LogLine>;
  /** Puts the streams and the log level back. */
  restore(): void;
}

/**
 * Captures the gateway's log lines at `level` in this process, without printing them: the handlers
 * run in-process in the test gateway, so their lines pass through these two streams.
 */
export const captureLogLines = (level = 'info'): CapturedLogLines => {
  const previousLevel = process.env.GATEWAY_LOG_LEVEL;
  process.env.GATEWAY_LOG_LEVEL = level;
  const lines: LogLine[] = [];
  const waiting: Array<{ matches: (line: LogLine) => boolean; resolve: (line: LogLine) => void }> = [];
  const originals = { stdout: process.stdout.write, stderr: process.stderr.write };
  const capture = (text: string) => {
    for (const raw of text.split('\n')) {
      if (!raw.startsWith('{')) continue;
      const line = JSON.parse(raw) as LogLine;
      lines.push(line);
      for (const waiter of [...waiting]) {
        if (waiter.matches(line)) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  };
  const replacement = (original: typeof process.stdout.write) =>
    function write(this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
      const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
      if (text.startsWith('{')) {
        capture(text);
        return true;
      }
      return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    } as typeof process.stdout.write;
  process.stdout.write = replacement(originals.stdout);
  process.stderr.write = replacement(originals.stderr);
  return {
    lines,
    next: (matches) => {
      const found = lines.find(matches);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiting.push({ matches, resolve }));
    },
    restore: () => {
      process.stdout.write = originals.stdout;
      process.stderr.write = originals.stderr;
      if (previousLevel === undefined) delete process.env.GATEWAY_LOG_LEVEL;
      else process.env.GATEWAY_LOG_LEVEL = previousLevel;
    },
  };
};
