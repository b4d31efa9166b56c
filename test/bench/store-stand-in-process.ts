import { fork } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { bundledServer } from './bundled-server.js';
import { pin } from './process-stats.js';

/** DynamoDB's stand-in (store-stand-in.ts) as the benches run it: a process of its own, on `cpu`. */
export interface StoreStandIn {
  /** The endpoint a gateway is given (`BENCH_STORE_ENDPOINT`). */
  readonly url: string;
  /** How many usage records it has taken, and in how many calls. */
  records(): Promise<{ records: number; calls: number }>;
  stop(): void;
}

export const startStoreStandIn = async (cpu: number): Promise<StoreStandIn> => {
  const child = fork(await bundledServer(path.join('test', 'bench', 'store-stand-in.ts')));
  const [ready] = (await once(child, 'message')) as [{ url: string }];
  pin(child.pid!, cpu);
  return {
    url: ready.url,
    records: async () => {
      child.send({ kind: 'records' });
      const [taken] = (await once(child, 'message')) as [{ records: number; calls: number }];
      return taken;
    },
    stop: () => child.disconnect(),
  };
};
