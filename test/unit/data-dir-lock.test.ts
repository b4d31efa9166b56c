import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE_NAME, lockDataDir } from '../../infra/local/data-dir-lock.js';
import { StartRefusedError } from '../../infra/local/start-refused-error.js';

let folder: string;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'gateway-lock-'));
});

afterEach(() => {
  rmSync(folder, { recursive: true, force: true });
});

/** The pid of a process that has already ended. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

describe('data dir lock', () => {
  test('the lock file names its owner, and releasing it removes it', () => {
    const lock = lockDataDir(folder);
    expect(readFileSync(join(folder, LOCK_FILE_NAME), 'utf8').trim()).toBe(String(process.pid));
    lock.release();
    expect(existsSync(join(folder, LOCK_FILE_NAME))).toBe(false);
  });

  test('a data dir held by a live process is refused with a message naming that process', () => {
    const lock = lockDataDir(folder);
    try {
      expect(() => lockDataDir(folder)).toThrow(StartRefusedError);
      expect(() => lockDataDir(folder)).toThrow(new RegExp(`in use by another model-gateway \\(pid ${process.pid}\\)`));
    } finally {
      lock.release();
    }
  });

  test.each([
    ['a process that has ended', () => `${deadPid()}\n`],
    ['nothing readable', () => ''],
  ])('a stale lock holding %s is taken over', (_, content) => {
    writeFileSync(join(folder, LOCK_FILE_NAME), content());
    const lock = lockDataDir(folder);
    expect(readFileSync(join(folder, LOCK_FILE_NAME), 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  test('releasing leaves alone a lock that another process has taken since', () => {
    const lock = lockDataDir(folder);
    const other = `${deadPid()}\n`;
    writeFileSync(join(folder, LOCK_FILE_NAME), other);
    lock.release();
    expect(readFileSync(join(folder, LOCK_FILE_NAME), 'utf8')).toBe(other);
  });
});
