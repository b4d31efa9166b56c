import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/** Runs `work` in a fresh temporary directory, removed afterwards whatever happens; returns its result. */
export const inTemporaryDirectory = async <Result>(
  prefix: string,
  work: (directory: string) => Promise<Result>,
): Promise<Result> => {
  const directory = await mkdtemp(path.join(os.tmpdir(), prefix));
  try {
    return await work(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
};
