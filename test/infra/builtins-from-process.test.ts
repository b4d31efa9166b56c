import { readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { invokeBundle, lambdaLikeEnvironment } from '../../infra/build/bundle-runner.js';
import { writeSplitBundle } from '../../infra/build/split-bundle.js';
import { inTemporaryDirectory } from '../../infra/build/temporary-directory.js';

/**
 * A bundle takes Node's built-ins from `process.getBuiltinModule` (`builtins-from-process.ts`): a
 * member it imports is the built-in's own, read once at init when it is a plain value and where it is
 * used when it is behind a getter; no import copies a built-in's members; and the bytes do not depend
 * on what the building process has read.
 */
const entry = `
import { createHash } from 'node:crypto';
import crypto from 'node:crypto';
import { readFileSync, ReadStream } from 'node:fs';
import { Readable } from 'node:stream';

const loaded = (name) => process.moduleLoadList.includes('NativeModule ' + name);
const streamsAtInit = loaded('internal/fs/streams');

export const handler = async () => {
  const fs = process.getBuiltinModule('node:fs');
  const body = JSON.stringify({
    streamsAtInit,
    hash: createHash('sha256').update('x').digest('hex'),
    defaultHash: crypto.createHash('sha256').update('x').digest('hex'),
    readFileSync: readFileSync === fs.readFileSync,
    readable: Readable === process.getBuiltinModule('node:stream').Readable,
    readStream: ReadStream === fs.ReadStream,
    streamsAfterUse: loaded('internal/fs/streams'),
  });
  return { statusCode: 200, body };
};
`;

const bundleCode = async (directory: string): Promise<string> => {
  const files = (await readdir(directory, { recursive: true, withFileTypes: true })).filter((file) => file.isFile());
  const named = files.map((file) => path.join(file.parentPath, file.name)).sort();
  return (await Promise.all(named.map((file) => readFile(file, 'utf8')))).join('\n');
};

it('imports built-in members without copying the modules, and reads a getter only where it is used', async () => {
  await inTemporaryDirectory('gateway-builtins-', async (directory) => {
    await writeFile(path.join(directory, 'entry.mjs'), entry);
    const out = path.join(directory, 'out');
    await writeSplitBundle('models', out, path.join(directory, 'entry.mjs'));
    const [result] = await invokeBundle(path.join(out, 'index.mjs'), [{}], lambdaLikeEnvironment('builtins'));
    const expectedHash = process.getBuiltinModule('node:crypto').createHash('sha256').update('x').digest('hex');

    expect(JSON.parse(result!.body)).toEqual({
      streamsAtInit: false,
      hash: expectedHash,
      defaultHash: expectedHash,
      readFileSync: true,
      readable: true,
      readStream: true,
      streamsAfterUse: true,
    });
  });
});

it('copies no built-in module for members that are plain values', async () => {
  await inTemporaryDirectory('gateway-builtins-', async (directory) => {
    const plainOnly = entry.replace(', ReadStream', '').replace('ReadStream === fs.ReadStream', 'true');
    await writeFile(path.join(directory, 'entry.mjs'), plainOnly);
    const out = path.join(directory, 'out');
    await writeSplitBundle('models', out, path.join(directory, 'entry.mjs'));
    const [result] = await invokeBundle(path.join(out, 'index.mjs'), [{}], lambdaLikeEnvironment('builtins'));

    expect(JSON.parse(result!.body)).toMatchObject({ readFileSync: true, readable: true, streamsAfterUse: false });
    // esbuild's namespace copy defines a getter for each of a module's members, at init.
    expect((await bundleCode(out)).includes('getOwnPropertyNames')).toBe(false);
  });
});

it('writes the same bytes whatever the building process has read of the built-ins', async () => {
  await inTemporaryDirectory('gateway-builtins-', async (directory) => {
    await writeFile(path.join(directory, 'entry.mjs'), entry);
    const before = path.join(directory, 'before');
    await writeSplitBundle('models', before, path.join(directory, 'entry.mjs'));
    // Node turns a lazy getter into a plain value once it is read.
    for (const name of ['node:fs', 'node:crypto', 'node:stream', 'node:net']) {
      const builtin = process.getBuiltinModule(name) as Record<string, unknown>;
      for (const member of Object.getOwnPropertyNames(builtin)) void builtin[member];
    }
    const after = path.join(directory, 'after');
    await writeSplitBundle('models', after, path.join(directory, 'entry.mjs'));

    expect(await bundleCode(after)).toBe(await bundleCode(before));
  });
});
