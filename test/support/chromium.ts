import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's chromium (`apt-get install chromium`): the browser tests never download one. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export type ChromiumAvailability =
  | { readonly kind: 'available' }
  | { readonly kind: 'skip'; readonly reason: string }
  | { readonly kind: 'fail'; readonly reason: string };

/**
 * Whether the browser suite can run here. Missing chromium fails the suite only in CI after the
 * install step said it installed it (`GATEWAY_CHROMIUM_INSTALLED=1`, set by `.ci/run`); anywhere else
 * the suite is skipped with the reason printed.
 */
export const chromiumAvailability = (): ChromiumAvailability => {
  if (existsSync(CHROMIUM_PATH)) return { kind: 'available' };
  const reason = `no chromium at ${CHROMIUM_PATH} (apt-get install -y chromium, or set CHROMIUM_PATH)`;
  if (process.env.CI === 'true' && process.env.GATEWAY_CHROMIUM_INSTALLED === '1') return { kind: 'fail', reason };
  return { kind: 'skip', reason };
};

export interface LaunchedChromium {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Headless chromium with a fresh profile (a new --user-data-dir, which playwright takes as the
 * persistent context's folder), and nothing that calls out to the network by itself.
 */
export const launchChromium = async (): Promise<LaunchedChromium> => {
  const profile = await mkdtemp(path.join(tmpdir(), 'model-gateway-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
};
