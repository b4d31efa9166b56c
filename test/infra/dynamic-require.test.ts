import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { writeSplitBundle } from '../../infra/build/split-bundle.js';
import { inTemporaryDirectory } from '../../infra/build/temporary-directory.js';

/**
 * The bundles are ES modules without a `require`: built-ins come from `process.getBuiltinModule`, and
 * a `require` whose name esbuild cannot know at build time would throw when it runs. Such a bundle is
 * refused when it is built, not found out on a deployed stage.
 */
const bundleOf = (source: string) =>
  inTemporaryDirectory('gateway-require-', async (directory) => {
    const entry = path.join(directory, 'entry.ts');
    await writeFile(entry, source);
    await writeSplitBundle('models', path.join(directory, 'out'), entry);
    return readFile(path.join(directory, 'out', 'index.mjs'), 'utf8');
  });

describe('a bundle and require', () => {
  it('gives a CommonJS-style require of a built-in its module, with no require defined', async () => {
    const code = await bundleOf(
      "const { createHash } = require('node:crypto');\nexport const handler = async () => createHash('sha256').update('x').digest('hex');\n",
    );
    expect(code).toContain('process.getBuiltinModule("node:crypto")');
    expect(code).not.toContain('createRequire');
  });

  it('is refused when it requires a name known only at run time', async () => {
    await expect(bundleOf('export const handler = async () => require(process.env.PLUGIN ?? "x");\n')).rejects.toThrow(
      /calls require with a name known only at run time/,
    );
  });
});
