#!/usr/bin/env node
// Launcher for the gatewayctl CLI: loads tsx from this package's own node_modules, then runs the
// TypeScript CLI in this process (no build step, no global tsx needed).
import { register } from 'tsx/esm/api';

register();
await import('../cli/gatewayctl.ts');
