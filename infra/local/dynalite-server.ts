import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';

/*
 * This module is also the entry of the store's child process (see embedded-store.ts), which Node runs
 * by stripping the types: it imports only Node built-ins and dynalite, nothing of ours. Dynalite is
 * imported when a store starts: the gateway's own process imports this module for its protocol (the
 * flag, the messages) and, with the store in a child process (the default), never runs a store, so it
 * no longer loads the engine (about 75 ms of its start and 1.5 MB of its memory).
 */

export interface DynaliteServer {
  readonly port: number;
  /** Stops accepting connections and closes the database once its pending operations are done. */
  close(): Promise<void>;
}

/**
 * Starts dynalite on a free loopback port: LevelDB files under `dataDir`, or memory only when
 * `dataDir` is `memory`. Tables become ACTIVE at once.
 */
export const listenDynalite = async (dataDir: string): Promise<DynaliteServer> => {
  const inMemory = dataDir === 'memory';
  if (!inMemory) mkdirSync(dataDir, { recursive: true });
  const { default: dynalite } = await import('dynalite');
  const server = dynalite({
    ...(inMemory ? {} : { path: dataDir }),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Kept-alive connections from a client that is already gone must not hold the close.
        server.closeIdleConnections();
      }),
  };
};

/** The flag that makes this module serve as the store's child process. */
export const SERVE_FLAG = '--serve-embedded-store';

/** What the child process and its parent say to each other over the IPC channel. */
export type StoreProcessMessage =
  | { readonly kind: 'ready'; readonly port: number }
  | { readonly kind: 'failed'; readonly message: string }
  | { readonly kind: 'close' };

/** How often the child checks that its parent is still the one that started it. */
const PARENT_CHECK_MS = 1000;

/**
 * The child process: serves until the parent asks it to close, until the parent goes away (the IPC
 * channel disconnects, or the parent pid changes because the parent died and the child was
 * re-parented), or until it is sent SIGTERM or SIGINT itself, so that no store outlives its gateway.
 * It runs in a process group of its own: a signal to the gateway's group (Ctrl-C, `kill -- -pgid`)
 * reaches the gateway, which finishes its requests and writes their usage before it closes the store.
 */
const serveForParent = async (dataDir: string): Promise<void> => {
  const send = (message: StoreProcessMessage) => process.send?.(message);
  let server: DynaliteServer;
  try {
    server = await listenDynalite(dataDir);
  } catch (error) {
    // The exit waits for the reason to reach the parent.
    const failed: StoreProcessMessage = {
      kind: 'failed',
      message: error instanceof Error ? error.message : String(error),
    };
    process.send?.(failed, () => process.exit(1));
    return;
  }
  let closing: Promise<void> | undefined;
  const closeAndExit = () => {
    // Files on disk are closed cleanly; an in-memory store has nothing to lose, but the same path serves both.
    closing ??= server.close().finally(() => process.exit(0));
    // A connection that never finishes must not keep the process alive for ever.
    setTimeout(() => process.exit(0), 5000).unref();
  };
  process.on('message', (message: StoreProcessMessage) => {
    if (message.kind === 'close') closeAndExit();
  });
  process.once('disconnect', closeAndExit);
  process.once('SIGTERM', closeAndExit);
  process.once('SIGINT', closeAndExit);
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) closeAndExit();
  }, PARENT_CHECK_MS).unref();
  send({ kind: 'ready', port: server.port });
};

if (process.argv[2] === SERVE_FLAG && process.send) void serveForParent(process.argv[3] ?? 'memory');
