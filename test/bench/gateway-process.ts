import { startLocalGateway } from '../../infra/local/local-gateway.js';

/**
 * The gateway under measurement, in its own process so that its CPU time and memory are its own.
 * Answers `cpu` and `memory` questions from the bench over IPC.
 */
const gateway = await startLocalGateway({ port: 0, dataDir: 'memory', adminKey: process.env.BENCH_ADMIN_KEY });
process.send!({ kind: 'ready', url: gateway.url });
process.on('message', (message: { kind: string }) => {
  if (message.kind === 'cpu') process.send!({ kind: 'cpu', usage: process.cpuUsage() });
  if (message.kind === 'memory') process.send!({ kind: 'memory', maxRssKb: process.resourceUsage().maxRSS, rss: process.memoryUsage().rss });
  if (message.kind === 'stop') void gateway.close().then(() => process.exit(0));
});
