import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { StartRefusedError } from './start-refused-error.js';

/** The file in a data dir that names the process serving it. */
export const LOCK_FILE_NAME = 'gateway.lock';

export interface DataDirLock {
  readonly path: string;
  /** Removes the lock file if it is still ours. */
  release(): void;
}

/**
 * When a process started, in clock ticks since boot (Linux), so that a lock naming a pid that has
 * since been reused by another process (after a reboot, or in a new container) is seen as stale.
 */
const startTimeOf = (pid: number): string | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: count the fields after it.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
};

interface LockOwner {
  readonly pid: number;
  readonly startTime: string | undefined;
}

const holds = (owner: LockOwner): boolean => {
  if (owner.pid === process.pid) return false;
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; it may still hold the folder.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const startTime = startTimeOf(owner.pid);
  return owner.startTime === undefined || startTime === undefined || startTime === owner.startTime;
};

const ownerOf = (path: string): LockOwner | undefined => {
  try {
    const [pidText, startTime] = readFileSync(path, 'utf8').trim().split(/\s+/);
    const pid = Number.parseInt(pidText ?? '', 10);
    return Number.isInteger(pid) && pid > 0 ? { pid, startTime: startTime || undefined } : undefined;
  } catch {
    return undefined;
  }
};

const sameOwner = (left: LockOwner | undefined, right: LockOwner | undefined) =>
  left?.pid === right?.pid && left?.startTime === right?.startTime;

/**
 * Claims `dataDir` for this process: a lock file created exclusively, holding our pid and start time.
 * A lock left by a process that no longer runs is taken over; one held by a live process refuses the start with a
 * message naming that process. The embedded engine's own file lock stays the last line of defence if
 * two starts race past this check.
 */
export const lockDataDir = (dataDir: string): DataDirLock => {
  const folder = resolve(dataDir);
  mkdirSync(folder, { recursive: true });
  const path = join(folder, LOCK_FILE_NAME);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      writeFileSync(path, `${process.pid} ${startTimeOf(process.pid) ?? ''}\n`, { flag: 'wx' });
      return {
        path,
        release: () => {
          if (ownerOf(path)?.pid !== process.pid) return;
          try {
            unlinkSync(path);
          } catch {
            // Already gone: nothing to release.
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = ownerOf(path);
    if (owner !== undefined && holds(owner)) {
      throw new StartRefusedError(
        `the data dir ${folder} is in use by another model-gateway (pid ${owner.pid}): stop it first, or set GATEWAY_DATA_DIR to another folder`,
      );
    }
    // A stale lock (its process is gone, the pid now belongs to another process or to this one, or
    // the file is empty or unreadable): only remove it if it still names the same owner, so that a
    // lock another start has just taken is left alone.
    if (sameOwner(ownerOf(path), owner)) {
      try {
        unlinkSync(path);
      } catch {
        // Removed by another start meanwhile: try to create it again.
      }
    }
  }
  throw new StartRefusedError(`could not lock the data dir ${folder}: another start is taking it over`);
};
