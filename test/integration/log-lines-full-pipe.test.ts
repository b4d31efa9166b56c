import { spawn } from 'node:child_process';
import { once } from 'node:events';

/**
 * Log lines go to standard output with one system call each. Where that output is a pipe nobody is
 * reading yet, the pipe fills: the call then fails (a line shorter than the room a pipe frees at a
 * time) or takes part of a line (a longer one), and what is left must still arrive, whole and in
 * order, once the reader catches up. Run in a process of its own, whose output the test holds unread
 * until every line has been logged.
 */
const LINES = 6000;
const TEXT = 'é ✓ 😀';

const plans = {
  'short lines': 'const fillerOf = () => "x".repeat(300);',
  // Every 50th line is longer than a pipe holds: it can only go in part.
  'some lines longer than the pipe holds': 'const fillerOf = (index) => "x".repeat(index % 50 === 49 ? 150_000 : 300);',
};

test.each(Object.keys(plans) as (keyof typeof plans)[])(
  'every line arrives whole and in order when the output pipe was full: %s',
  async (plan) => {
    const script = [
      "const { log } = await import('./functions/shared/log.ts');",
      plans[plan],
      `for (let index = 0; index < ${LINES}; index += 1) log.info('line', { index, filler: fillerOf(index), text: '${TEXT}' });`,
      // Written once every line has been logged: the test starts reading only then.
      "process.stderr.write('logged\\n');",
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
      env: { ...process.env, GATEWAY_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.pause();
    // After the exit and every output closed.
    const closed = once(child, 'close');
    let errors = '';
    // Or the child's end, if it died logging.
    const logged = new Promise<void>((resolve) => {
      child.stderr.on('data', (chunk: Buffer) => {
        errors += chunk.toString();
        if (errors.includes('logged')) resolve();
      });
      child.once('exit', () => resolve());
    });
    await logged;

    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (output += chunk));
    child.stdout.resume();
    const [code] = await closed;

    expect({ code, errors: errors.slice(0, 500) }).toEqual({ code: 0, errors: 'logged\n' });
    // More than the pipe holds, so that the full pipe was met.
    expect(output.length).toBeGreaterThan(1024 * 1024);
    const lines = output.trimEnd().split('\n');
    expect(lines.length).toBe(LINES);
    const firstBroken = lines.findIndex((line, index) => {
      try {
        const parsed = JSON.parse(line) as { index: number; text: string };
        return parsed.index !== index || parsed.text !== TEXT;
      } catch {
        return true;
      }
    });
    expect(firstBroken).toBe(-1);
  },
  60_000,
);
