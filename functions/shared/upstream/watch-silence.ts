import { timeoutAfterReads } from './timeout-after-reads.js';

/** A silence being timed: `touch` when something passes, `clear` when nothing is to be timed any more. */
export interface SilenceWatch {
  touch(): void;
  clear(): void;
}

/**
 * Calls `onSilence` after every `ms` without a `touch`, until cleared: an upstream body's idle timeout,
 * a stream's keep-alive. A touch only notes the time: pushing a timer back (`refresh`) on every chunk
 * or event takes it out of Node's timer list and puts it back in, a cost on each of a stream's hundreds;
 * this timer, when it fires, looks at the last touch and waits out the rest of the silence, if any.
 * It is decided after the loop's reads (`timeoutAfterReads`), and never holds the process up.
 */
export const watchSilence = (ms: number, onSilence: () => void): SilenceWatch => {
  let touchedAt = performance.now();
  let cleared = false;
  let timer: NodeJS.Timeout;
  const arm = (after: number) => {
    timer = timeoutAfterReads(after, () => cleared, check).unref();
  };
  const check = () => {
    const quiet = performance.now() - touchedAt;
    if (quiet < ms) return arm(ms - quiet);
    touchedAt = performance.now();
    onSilence();
    if (!cleared) arm(ms);
  };
  arm(ms);
  return {
    touch: () => {
      touchedAt = performance.now();
    },
    clear: () => {
      cleared = true;
      clearTimeout(timer);
    },
  };
};
