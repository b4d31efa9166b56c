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

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; it still holds the folder.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const ownerOf = (path: string): number | undefined => {
  try {
    const pid = Number.parseInt(readFileSync(path, 'utf8').trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
};

/**
 * Claims `dataDir` for this process: a lock file created exclusively, holding our pid. A lock left by
 * a process that no longer runs is taken over; one held by a live process refuses the start with a
 * message naming that process. The embedded engine's own file lock stays the last line of defence if
 * two starts race past this check.
 */
export const lockDataDir = (dataDir: string): DataDirLock => {
  const folder = resolve(dataDir);
  mkdirSync(folder, { recursive: true });
  const path = join(folder, LOCK_FILE_NAME);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx' });
      return {
        path,
        release: () => {
          if (ownerOf(path) !== process.pid) return;
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
    if (owner !== undefined && isAlive(owner)) {
      throw new StartRefusedError(
        `the data dir ${folder} is in use by another model-gateway (pid ${owner}): stop it first, or set GATEWAY_DATA_DIR to another folder`,
      );
    }
    // A stale lock (its process is gone, or the file is empty or unreadable): only remove it if it
    // still names the same owner, so that a lock another start has just taken is left alone.
    if (ownerOf(path) === owner) {
      try {
        unlinkSync(path);
      } catch {
        // Removed by another start meanwhile: try to create it again.
      }
    }
  }
  throw new StartRefusedError(`could not lock the data dir ${folder}: another start is taking it over`);
};
