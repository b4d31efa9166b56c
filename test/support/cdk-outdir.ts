import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A folder for one test app's cloud assembly, removed when the test file is done. An App given no
 * `outdir` synthesizes into a temporary folder of its own that nothing removes: every run of the
 * infra tests left some thousands of them behind.
 */
const made: string[] = [];

export const cdkOutdir = (): string => {
  const folder = mkdtempSync(path.join(tmpdir(), 'gateway-cdk-test-'));
  made.push(folder);
  return folder;
};

afterAll(() => {
  for (const folder of made.splice(0)) rmSync(folder, { recursive: true, force: true });
});
