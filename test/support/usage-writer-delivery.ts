import { handler } from '../../functions/usage-writer/handler.js';
import { runAsStackFunction } from './aws-call-recorder.js';
import type { LogLine } from './captured-log-lines.js';
import { cloudWatchLogsEvent } from './cloudwatch-logs-event.js';

/** The name the AWS call recorder gives the usage writer's calls. */
export const USAGE_WRITER = 'usage-writer';

/**
 * Hands usage lines to the usage writer as the subscriptions do, in two invocations: every line in one
 * (its puts go out in batches) and the first line alone (a put of its own). Fails when the writer does.
 */
export const deliverUsageLines = async (lines: readonly LogLine[]): Promise<void> => {
  const messages = lines.map((line) => JSON.stringify(line));
  await runAsStackFunction(USAGE_WRITER, () => handler(cloudWatchLogsEvent(messages)));
  await runAsStackFunction(USAGE_WRITER, () => handler(cloudWatchLogsEvent(messages.slice(0, 1))));
};
