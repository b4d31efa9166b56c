import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { consoleFolderFor, keepConsoleBuild } from '../../infra/local/console-web.js';

/** The local runtime's console is kept in a folder named by its content, so runs do not pile up folders. */
describe('the folder the local runtime serves its console from', () => {
  let cache: string;
  beforeEach(async () => {
    cache = await mkdtemp(path.join(tmpdir(), 'console-cache-test-'));
  });
  afterEach(() => rm(cache, { recursive: true, force: true }));

  const build = (script: string) =>
    new Map([
      ['index.html', '<script src="./app.js"></script>'],
      ['app.js', script],
    ]);

  it('is one folder for one build, however many processes keep it at once, and nothing beside it', async () => {
    const folders = await Promise.all(Array.from({ length: 6 }, () => keepConsoleBuild(build('one()'), cache)));
    expect(new Set(folders).size).toBe(1);
    expect(await readFile(path.join(folders[0]!, 'app.js'), 'utf8')).toBe('one()');
    expect(await keepConsoleBuild(build('one()'), cache)).toBe(folders[0]);
    expect(await readdir(cache)).toEqual([path.basename(folders[0]!)]);
  });

  it('is another folder for another build', async () => {
    const first = await keepConsoleBuild(build('one()'), cache);
    const second = await keepConsoleBuild(build('two()'), cache);
    expect(second).not.toBe(first);
    expect(await readFile(path.join(second, 'app.js'), 'utf8')).toBe('two()');
    expect(await readFile(path.join(first, 'app.js'), 'utf8')).toBe('one()');
  });

  it('is never a folder of that name whose files differ from the build', async () => {
    const kept = await keepConsoleBuild(build('one()'), cache);
    await writeFile(path.join(kept, 'app.js'), 'changed()');
    const again = await keepConsoleBuild(build('one()'), cache);
    expect(again).not.toBe(kept);
    expect(await readFile(path.join(again, 'app.js'), 'utf8')).toBe('one()');
    // The other folder is left as it is: a gateway may be serving from it.
    expect(await readFile(path.join(kept, 'app.js'), 'utf8')).toBe('changed()');
  });

  it('is made where the cache folder does not exist yet', async () => {
    const nested = path.join(cache, 'not', 'yet');
    const kept = await keepConsoleBuild(build('one()'), nested);
    expect(path.dirname(kept)).toBe(nested);
    await mkdir(nested, { recursive: true });
    expect(await readFile(path.join(kept, 'index.html'), 'utf8')).toContain('app.js');
  });

  it('is a temporary folder of its own where the cache cannot be written', async () => {
    // A file where the cache folder would go: nothing can be made under it, whoever runs this.
    const blocked = path.join(cache, 'not-a-folder');
    await writeFile(blocked, '');
    await expect(keepConsoleBuild(build('one()'), path.join(blocked, 'cache'))).rejects.toThrow();
    const folder = await consoleFolderFor(build('one()'), path.join(blocked, 'cache'));
    try {
      expect(path.dirname(folder)).toBe(tmpdir());
      expect(await readFile(path.join(folder, 'app.js'), 'utf8')).toBe('one()');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
