import { gzipSync } from 'node:zlib';
import type { CloudWatchLogsDecodedData, CloudWatchLogsEvent } from 'aws-lambda';

/** What a log group's subscription invokes its function with: these lines, gzipped and base64-encoded. */
export const cloudWatchLogsEvent = (
  lines: readonly string[],
  messageType: CloudWatchLogsDecodedData['messageType'] = 'DATA_MESSAGE',
): CloudWatchLogsEvent => {
  const data: CloudWatchLogsDecodedData = {
    messageType,
    owner: '123456789012',
    logGroup: '/aws/lambda/model-gateway-chat',
    logStream: '2026/12/06/[$LATEST]0123456789abcdef',
    subscriptionFilters: ['usage-records'],
    logEvents: lines.map((message, index) => ({ id: String(index), timestamp: Date.now(), message })),
  };
  return { awslogs: { data: gzipSync(JSON.stringify(data)).toString('base64') } };
};
