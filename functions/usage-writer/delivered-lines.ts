import { gunzipSync } from 'node:zlib';
import type { CloudWatchLogsDecodedData, CloudWatchLogsEvent } from 'aws-lambda';

/**
 * The log lines a subscription delivers, which CloudWatch Logs sends gzipped and base64-encoded. A
 * control message (sent when the subscription is made, to see that its destination answers) has none.
 * An event that does not decode throws: retrying cannot mend it, but the dead-letter queue then keeps it.
 */
export const deliveredLines = (event: CloudWatchLogsEvent): string[] => {
  const text = gunzipSync(Buffer.from(event.awslogs.data, 'base64')).toString('utf8');
  const data = JSON.parse(text) as CloudWatchLogsDecodedData;
  return data.messageType === 'DATA_MESSAGE' ? data.logEvents.map((logEvent) => logEvent.message) : [];
};
