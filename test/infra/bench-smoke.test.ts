import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * `npm run bench` is not part of the suite (its figures need a quiet machine), but it must keep
 * running: a few requests per phase, Portkey left out so that no install is attempted.
 */
test('the bench runs end to end with tiny settings and prints every target', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'test/bench/bench.ts'], {
    env: {
      ...process.env,
      BENCH_PORTKEY: 'off',
      BENCH_REQUESTS: '5',
      BENCH_LATENCY_REQUESTS: '10',
      BENCH_LATENCY_SLICE: '3',
      BENCH_LOADED_REQUESTS: '40',
      BENCH_STREAMS: '8',
      BENCH_PACED_STREAMS: '8',
      BENCH_WARM_UP: '4',
      BENCH_STREAM_WARM_UP: '4',
      BENCH_COLD_STARTS: '1',
    },
    timeout: 240_000,
  });
  expect(stdout).toContain('| CPU per request, c=32 |');
  expect(stdout).toContain('Portkey: skipped (BENCH_PORTKEY=off)');
  for (const target of [
    '≤ 3× floor',
    '≤ 4× floor',
    'first byte adds ≤ 1 ms',
    'p50 ≤ 0.5 ms',
    'p99 ≤ 2 ms',
    'RSS ≤ 150 MB',
    'every bundle ≤ 250 KB',
    'cold start ≤ 1.5× hello-world',
  ])
    expect(stdout).toMatch(new RegExp(`(PASS|FAIL) +.*${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
  expect(stdout).toMatch(/API Gateway emulation \(not paid on Lambda\): (about \d|within this run's noise)/);
  expect(stdout).toMatch(/bundles, KB a cold start loads .*: models \d+ \/ \d\.\d\d×, chat \d+ \//);
  expect(stdout).toMatch(
    /\| paced stream \(a chunk every 5 ms\): first byte p50, c=16 \| \d+\.\d\d ms \| \d+\.\d\d ms \|/,
  );
  expect(stdout).toMatch(/paced streams .*: the gateway adds -?\d+\.\d\d ms to the first byte/);
  expect(stdout).toMatch(/the store client alone \(no gateway code\), under every group's: \d\.\d\d×/);
  // The store's stand-in answers the writes of usage records itself: every request must still have left its record.
  const [, records, requests] = /store's stand-in took: (\d+) in \d+ calls, for (\d+) chat requests/.exec(stdout) ?? [];
  expect(Number(requests)).toBeGreaterThan(0);
  expect(Number(records)).toBe(Number(requests));
  expect(stdout).not.toContain('MISMATCH');
}, 300_000);
