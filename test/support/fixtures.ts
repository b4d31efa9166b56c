import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** A recorded stream: one JSON event per line of `test/fixtures/<name>.chunks.txt`. */
export const readChunks = <T = any>(name: string): T[] =>
  readFileSync(fileURLToPath(new URL(`../fixtures/${name}.chunks.txt`, import.meta.url)), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
