import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { chunksOf } from '../../infra/build/bundle-chunks.js';
import { invokeBundle, lambdaLikeEnvironment } from '../../infra/build/bundle-runner.js';
import { writeSplitBundle } from '../../infra/build/split-bundle.js';
import { inTemporaryDirectory } from '../../infra/build/temporary-directory.js';

/**
 * A function's cold start reads the entry and one chunk, however its lazily loaded modules share the
 * entry's code; and a module reached with `import()` is the module itself: the same instance as the
 * entry's static import, its named and default exports all there.
 */
const sources: Record<string, string> = {
  'counter.ts': 'export let count = 0;\nexport const bump = () => (count += 1);\n',
  'words.ts': "export const hello = 'hello';\nexport const bye = 'bye';\n",
  'numbers.ts': 'export const two = 2;\n',
  // Each lazy module shares a different part of the entry's code: without the plugin, three chunks.
  'lazy-counter.ts': "import { bump } from './counter.js';\nexport const bumpTwice = () => (bump(), bump());\n",
  'lazy-words.ts':
    "import { hello } from './words.js';\nexport const greeting = `${hello} world`;\nexport default 'lazy default';\n",
  'lazy-both.ts':
    "import { bye } from './words.js';\nimport { two } from './numbers.js';\nexport const farewell = bye.repeat(two);\n",
  'plain.cjs': 'module.exports = { answer: 42 };\n',
  'entry.ts': `
import { bump, count } from './counter.js';
import { hello, bye } from './words.js';
import { two } from './numbers.js';
export const handler = async () => {
  bump();
  const lazyCounter = await import('./lazy-counter.js');
  lazyCounter.bumpTwice();
  const lazyWords = await import('./lazy-words.js');
  const lazyBoth = await import('./lazy-both.js');
  const plain = await import('./plain.cjs');
  const http = await import('node:http');
  // The entry's own module, imported again: the same instance, not a copy the stand-in bundled.
  const counterAgain = await import('./counter.js');
  const body = JSON.stringify({
    count,
    sameCounter: counterAgain.bump === bump && counterAgain.count === count,
    words: [hello, bye, two, lazyWords.greeting, lazyWords.default, lazyBoth.farewell],
    plain: plain.default.answer,
    // As without the stand-in: a built-in is a CommonJS module to the bundle, its exports under default.
    http: typeof http.default.request === 'function',
  });
  return { statusCode: 200, body };
};
`,
};

it('puts everything init runs into one chunk, and keeps each dynamically imported module whole', async () => {
  await inTemporaryDirectory('gateway-init-chunk-', async (directory) => {
    for (const [name, source] of Object.entries(sources)) await writeFile(path.join(directory, name), source);
    const out = path.join(directory, 'out');
    const metafile = await writeSplitBundle('models', out, path.join(directory, 'entry.ts'));
    const outfile = path.join(out, 'index.mjs');

    expect(chunksOf(metafile, outfile).atInit.length).toBeLessThanOrEqual(2);
    const [result] = await invokeBundle(outfile, [{}], lambdaLikeEnvironment('init-chunk'));
    expect(JSON.parse(result!.body)).toEqual({
      count: 3,
      sameCounter: true,
      words: ['hello', 'bye', 2, 'hello world', 'lazy default', 'byebye'],
      plain: 42,
      http: true,
    });
  });
});
