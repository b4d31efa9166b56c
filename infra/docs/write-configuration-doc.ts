import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTable } from './configuration-doc.js';

/** `npm run docs:settings`: writes the `-c` settings table of docs/configuration.md from the stack's table. */
const path = 'docs/configuration.md';
writeFileSync(path, withSettingsTable(readFileSync(path, 'utf8')));
console.log(`wrote the -c settings of ${path}`);
