import { spawn, spawnSync } from 'node:child_process';
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
    expect(readFileSync(join(folder, LOCK_FILE_NAME), 'utf8')).toMatch(new RegExp(`^${process.pid} \\d+\\n$`));
    lock.release();
    expect(existsSync(join(folder, LOCK_FILE_NAME))).toBe(false);
  });

  test('a data dir held by another live process is refused with a message naming that process', async () => {
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = new Promise((resolve) => other.once('exit', resolve));
    try {
      writeFileSync(join(folder, LOCK_FILE_NAME), `${other.pid}\n`);
      expect(() => lockDataDir(folder)).toThrow(StartRefusedError);
      expect(() => lockDataDir(folder)).toThrow(new RegExp(`in use by another model-gateway \\(pid ${other.pid}\\)`));
    } finally {
      other.kill();
      await exited;
    }
  });

  test.each([
    ['a process that has ended', () => `${deadPid()}\n`],
    ['a pid now used by another process (its start time differs)', () => `${process.ppid} 1\n`],
    ['this process (a container started again with the same pids)', () => `${process.pid}\n`],
    ['nothing readable', () => ''],
  ])('a stale lock naming %s is taken over', (_, content) => {
    writeFileSync(join(folder, LOCK_FILE_NAME), content());
    const lock = lockDataDir(folder);
    expect(readFileSync(join(folder, LOCK_FILE_NAME), 'utf8')).toMatch(new RegExp(`^${process.pid} `));
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
