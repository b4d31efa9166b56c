#!/usr/bin/env node
// Launcher for the gatewayctl CLI: loads tsx from this package's own node_modules, then runs the
// TypeScript CLI in this process (no build step, no global tsx needed). Everything is resolved from
// this file's location, never from the working directory, so the CLI runs the same from any folder,
// through `npx gatewayctl` in the repository or a global install; that includes the compiler
// settings, which tsx would otherwise take from a tsconfig.json in the working directory.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const ownTsconfig = fileURLToPath(new URL('../tsconfig.json', import.meta.url));
register({ tsconfig: existsSync(ownTsconfig) ? ownTsconfig : false });
await import('../cli/gatewayctl.ts');
