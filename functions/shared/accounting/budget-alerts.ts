import { putItem } from '../store/documents.js';
import { spendExpiry } from './budget-period.js';
import { physicalTableName } from '../store/tables.js';
import { log } from '../log.js';
import { DEFAULT_METRICS_NAMESPACE, METRICS_NAMESPACE_VARIABLE } from '../metrics-namespace.js';
import { publishAlert } from './alert-topic.js';
import { roundUsd } from './pricing.js';
import type { BudgetReservation } from './quota.js';
import { readShards } from './sliced-budget.js';
import { spendKey } from './spend.js';

/**
 * Budget alerts (DESIGN §11): when a budget's spending in a period reaches a fraction in its
 * `alertAt`, one alert per budget, threshold and period, however many settlements cross it at once
 * and in however many processes: a conditional write of a marker item (`<spend id>!alert!<fraction>`,
 * in the spend table) decides which settlement sends it. The alert is one JSON log line at `warn`
 * with `"event": "budget_alert"`, which is also the `budget_alert` metric (embedded metric format,
 * by `level`), and a message to the stack's SNS topic when it has one.
 *
 * Only settlements of requests admitted when the budget's committed spending (spent plus open
 * reservations) had reached a threshold look at the spending, so a budget far from its thresholds
 * costs no read; one look per budget runs at a time in a process, and a threshold known to be sent
 * is not looked at again.
 */

type Granted = Extract<BudgetReservation, { granted: true }>;

const KEPT = 10_000;
/** `<spend id>@<fraction>` of the alerts this process knows were sent. */
const sent = new Set<string>();
/** The highest committed spending seen per spend id: a request admitted before another can settle after it. */
const highestCommitted = new Map<string, number>();
/** Per spend id, the look in flight and whether another was asked for meanwhile. */
const looking = new Map<string, { again: boolean; done: Promise<void> }>();

const bounded = <Collection extends { size: number; clear(): void }>(collection: Collection) => {
  if (collection.size >= KEPT) collection.clear();
  return collection;
};

const isConditionFailure = (error: unknown) => (error as Error).name === 'ConditionalCheckFailedException';

/** Marks the alert sent; `true` for the one caller whose write created the marker. */
const claim = async (reservation: Granted, threshold: number): Promise<boolean> => {
  const { period } = reservation.budget;
  const expiresAt = period === 'total' ? undefined : spendExpiry(period, Date.parse(reservation.periodLabel));
  try {
    await putItem({
      TableName: physicalTableName('spend'),
      Item: {
        id: `${reservation.spendId}!alert!${threshold}`,
        sentAt: new Date().toISOString(),
        // Kept as long as the period's spend items, so that the period cannot alert twice meanwhile.
        ...(expiresAt === undefined ? {} : { expiresAt }),
      },
      // Only the first writer of the marker sends the alert.
      ConditionExpression: 'attribute_not_exists(id)',
    });
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** The alert's fields, as logged and published. */
const alertOf = (reservation: Granted, threshold: number, spentUsd: number) => ({
  event: 'budget_alert',
  level: reservation.budget.level,
  id: reservation.budget.ownerId,
  accountId: reservation.budget.accountId,
  threshold,
  spentUsd,
  limitUsd: reservation.budget.limitUsd,
  period: reservation.budget.period,
  periodStart: reservation.periodLabel,
});

const send = async (reservation: Granted, threshold: number, spentUsd: number): Promise<void> => {
  const alert = alertOf(reservation, threshold, spentUsd);
  const { period, periodStart, ...fields } = alert;
  // One line: the alert for whoever reads the logs, and the `budget_alert` metric by level.
  log.warn('budget alert', {
    ...fields,
    period,
    ...(period === 'total' ? {} : { periodStart }),
    severity: 'warn',
    budget_alert: 1,
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: process.env[METRICS_NAMESPACE_VARIABLE] ?? DEFAULT_METRICS_NAMESPACE,
          Dimensions: [['level']],
          Metrics: [{ Name: 'budget_alert' }],
        },
      ],
    },
  });
  const percent = Math.round(threshold * 100);
  await publishAlert(
    `Budget alert: ${alert.level} ${alert.id} reached ${percent}% of its ${period} budget`,
    alert,
  ).catch((error: unknown) => log.warn('budget alert not published', { errorName: (error as Error).name }));
};

const look = async (reservation: Granted): Promise<void> => {
  const { budget, spendId, shards } = reservation;
  const counts = await readShards({
    table: physicalTableName('spend'),
    key: (index) => spendKey(spendId, index),
    shards,
    attribute: 'used',
  });
  const spentUsd = roundUsd(counts.reduce((sum, value) => sum + value, 0));
  for (const threshold of budget.alertAt) {
    const id = `${spendId}@${threshold}`;
    if (sent.has(id) || spentUsd < roundUsd(threshold * budget.limitUsd)) continue;
    const won = await claim(reservation, threshold);
    bounded(sent).add(id);
    if (won) await send(reservation, threshold, spentUsd);
  }
};

/** One look at a time per budget and period; a look asked for meanwhile runs once after it. */
const lookSoon = (reservation: Granted): Promise<void> => {
  const running = looking.get(reservation.spendId);
  if (running) {
    running.again = true;
    return running.done;
  }
  const entry = { again: false, done: Promise.resolve() };
  entry.done = (async () => {
    try {
      do {
        entry.again = false;
        await look(reservation);
      } while (entry.again);
    } finally {
      looking.delete(reservation.spendId);
    }
  })();
  bounded(looking).set(reservation.spendId, entry);
  return entry.done;
};

/**
 * Called once a reservation has settled: sends the alerts its budget's spending has reached in the
 * reservation's period and no one has sent yet. Never fails the settlement: a failure is logged.
 */
export const noteSpending = (reservation: Granted): Promise<void> | undefined => {
  const { budget, spendId, committed } = reservation;
  if (budget.alertAt.length === 0 || budget.limitUsd <= 0) return undefined;
  const highest = Math.max(highestCommitted.get(spendId) ?? 0, committed);
  bounded(highestCommitted).set(spendId, highest);
  const due = budget.alertAt.some(
    (threshold) => !sent.has(`${spendId}@${threshold}`) && highest >= roundUsd(threshold * budget.limitUsd),
  );
  if (!due) return undefined;
  return lookSoon(reservation).catch((error: unknown) =>
    log.warn('budget alert check failed', { errorName: (error as Error).name }),
  );
};
