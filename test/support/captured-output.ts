/**
 * Records every line the process writes to stdout and stderr (the gateway's log lines, since the
 * local runtime runs in the test's process) while still letting it through.
 */
export interface CapturedOutput {
  readonly text: () => string;
  restore(): void;
}

export const captureOutput = (): CapturedOutput => {
  const chunks: string[] = [];
  const originals = {
    stdout: process.stdout.write.bind(process.stdout),
    stderr: process.stderr.write.bind(process.stderr),
  };
  const recorder =
    (forward: typeof process.stdout.write) =>
    (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return (forward as (chunk: string | Uint8Array, ...rest: unknown[]) => boolean)(chunk, ...rest);
    };
  process.stdout.write = recorder(originals.stdout) as typeof process.stdout.write;
  process.stderr.write = recorder(originals.stderr) as typeof process.stderr.write;
  return {
    text: () => chunks.join(''),
    restore: () => {
      process.stdout.write = originals.stdout;
      process.stderr.write = originals.stderr;
    },
  };
};
