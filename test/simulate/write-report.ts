import type { WriteRecorder } from '../support/store-recorder.js';

/** About 1,000 write units per second per partition key (DynamoDB's per-partition ceiling). */
export const PARTITION_WRITE_LIMIT = 1000;
/** The expected rate must leave this share of the limit free, and a 99.9th-percentile second must fit. */
export const REQUIRED_HEADROOM = 0.5;

export interface KindRow {
  /** The partition key with ids replaced by placeholders: one row per kind of hot item. */
  readonly kind: string;
  /** How many partition keys of this kind the run wrote (its shards or partitions). */
  readonly partitions: number;
  readonly writesPerRequest: number;
  /** One partition key of the kind at the target rate: expected writes per second. */
  readonly expectedPerSecond: number;
  /** …and in a 99.9th-percentile second (λ + 3.09 σ, writes coming `writesPerRequest` to a pick). */
  readonly burstPerSecond: number;
  /** The busiest key's writes in the run against the even share: more than 4.5 σ over it is a skew. */
  readonly busiest: number;
  readonly evenShare: number;
  readonly skewed: boolean;
  readonly ok: boolean;
}

export interface WriteReport {
  readonly rows: readonly KindRow[];
  readonly totalWritesPerRequest: number;
  readonly hottestShare: number;
  readonly passed: boolean;
}

const kindOf = (partition: string): string => {
  const [table = ''] = partition.split(':');
  let kind = partition
    .replace(/acct_[A-Za-z0-9]+/g, '<account>')
    .replace(/key_[A-Za-z0-9]+/g, '<key>')
    .replace(/\b[0-9a-f]{64}\b/g, '<key hash>')
    .replace(/[^|:#\s]+@[^|#\s]+/g, '<member>')
    .replace(/\d{4}-\d{2}-\d{2}/g, '<day>')
    .replace(/#\d+$/, '#<n>');
  // Shard 0 of a sliced budget keeps the unsharded id.
  if ((table === 'counters' || table === 'spend') && !kind.endsWith('#<n>')) kind += '#<n>';
  return kind;
};

/**
 * Writes per partition key, by kind, scaled to `targetRps`. Shards and partitions are picked
 * independently of the rate, so a kind written w times per request over k keys takes w/k × targetRps
 * writes per second per key at that rate, provided the picks are even; the run checks that they are
 * (the busiest key within 4.5 σ of the even share), since a small run's busiest key is mostly noise.
 */
export const summarize = (recorder: WriteRecorder, requests: number, targetRps: number): WriteReport => {
  const byKind = new Map<string, { partitions: number; writes: number; picks: number; busiest: number }>();
  for (const [partition, writes] of recorder.writes) {
    const kind = kindOf(partition);
    const row = byKind.get(kind) ?? { partitions: 0, writes: 0, picks: 0, busiest: 0 };
    row.partitions += 1;
    row.writes += writes;
    row.picks += recorder.picks.get(partition) ?? 0;
    row.busiest = Math.max(row.busiest, writes);
    byKind.set(kind, row);
  }
  const rows = [...byKind.entries()]
    .map(([kind, row]) => {
      // A key's writes come in picks: a usage record's partition is picked per request; a shard is
      // picked by a conditional charge, for one request or for the requests of a loop turn together,
      // and its settlements follow it there. So a key's writes are about perPick × Poisson(picks):
      // variance perPick × mean, with at least one write to a pick.
      const perPick = Math.max(1, row.picks > 0 ? row.writes / row.picks : row.writes / requests);
      const evenShare = row.writes / row.partitions;
      const skewed = row.busiest > evenShare + 4.5 * Math.sqrt(perPick * evenShare) + perPick;
      const expected = (row.writes / requests / row.partitions) * targetRps;
      const burst = expected + 3.09 * Math.sqrt(perPick * expected);
      return {
        kind,
        partitions: row.partitions,
        writesPerRequest: row.writes / requests,
        expectedPerSecond: expected,
        burstPerSecond: burst,
        busiest: row.busiest,
        evenShare,
        skewed,
        ok: !skewed && expected <= PARTITION_WRITE_LIMIT * (1 - REQUIRED_HEADROOM) && burst < PARTITION_WRITE_LIMIT,
      };
    })
    .sort((a, b) => b.expectedPerSecond - a.expectedPerSecond);
  const total = recorder.totalWrites();
  const hottest = Math.max(...recorder.writes.values());
  return {
    rows,
    totalWritesPerRequest: total / requests,
    hottestShare: hottest / total,
    passed: rows.every((row) => row.ok),
  };
};

const pad = (text: string, width: number) => (text.length >= width ? text : text + ' '.repeat(width - text.length));
const left = (text: string, width: number) => (text.length >= width ? text : ' '.repeat(width - text.length) + text);

export const printReport = (
  report: WriteReport,
  run: { requests: number; concurrency: number; seconds: number; statuses: Map<number, number> },
): void => {
  const lines = [
    `${run.requests} requests from one account, ${run.concurrency} at a time, in ${run.seconds.toFixed(1)} s locally ` +
      `(statuses: ${[...run.statuses].map(([status, count]) => `${status}×${count}`).join(', ')})`,
    `${report.totalWritesPerRequest.toFixed(2)} writes per request; the hottest partition key took ` +
      `${(report.hottestShare * 100).toFixed(2)} % of all writes`,
    '',
    `Extrapolated to 10,000 requests/s; limit ${PARTITION_WRITE_LIMIT} writes/s per partition key, ` +
      `expected rate at most ${PARTITION_WRITE_LIMIT * (1 - REQUIRED_HEADROOM)}, 99.9th-percentile second under ${PARTITION_WRITE_LIMIT}:`,
    '',
    `${pad('partition key (kind)', 46)} ${left('keys', 5)} ${left('writes/req', 10)} ${left('w/s per key', 11)} ` +
      `${left('p99.9 w/s', 9)} ${left('run: busiest/even', 17)}  ok`,
    ...report.rows.map(
      (row) =>
        `${pad(row.kind, 46)} ${left(String(row.partitions), 5)} ${left(row.writesPerRequest.toFixed(2), 10)} ` +
        `${left(row.expectedPerSecond.toFixed(0), 11)} ${left(row.burstPerSecond.toFixed(0), 9)} ` +
        `${left(`${row.busiest}/${row.evenShare.toFixed(1)}${row.skewed ? ' SKEW' : ''}`, 17)}  ${row.ok ? 'yes' : 'NO'}`,
    ),
    '',
    report.passed
      ? 'PASS: every partition key stays under its limit with the margin.'
      : 'FAIL: a partition key would pass its limit.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
};
