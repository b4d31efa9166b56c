import type { SNSClient } from '@aws-sdk/client-sns';
import { withCallObserver } from '../aws/aws-call-observer.js';
import type * as SnsSdkModule from './sns-sdk.js';

/**
 * The stack's budget-alert topic (`GATEWAY_ALERT_TOPIC_ARN`, set by the stack; an e-mail subscription
 * is `-c budgetAlertEmail=`). Unset (the local runtime), alerts are the log line alone.
 * `SNS_ENDPOINT` points the client at another endpoint (a test's fake).
 */
export const ALERT_TOPIC_VARIABLE = 'GATEWAY_ALERT_TOPIC_ARN';

let sdk: Promise<typeof SnsSdkModule> | undefined;
let client: SNSClient | undefined;

const snsClient = async () => {
  const loaded = await (sdk ??= import('./sns-sdk.js'));
  if (!client) {
    const endpoint = process.env.SNS_ENDPOINT;
    client = withCallObserver(
      new loaded.SNSClient(
        endpoint
          ? {
              endpoint,
              region: process.env.AWS_REGION ?? 'us-east-1',
              ...(process.env.AWS_ACCESS_KEY_ID
                ? {}
                : { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }),
            }
          : {},
      ),
    );
  }
  return { client, PublishCommand: loaded.PublishCommand };
};

/** Publishes one alert to the topic, if the stack has one; resolves once SNS has taken it. */
export const publishAlert = async (subject: string, message: Readonly<Record<string, unknown>>): Promise<void> => {
  const topicArn = process.env[ALERT_TOPIC_VARIABLE];
  if (!topicArn) return;
  const { client: sns, PublishCommand } = await snsClient();
  // SNS subjects are at most 100 characters of ASCII without line breaks.
  const safeSubject = subject.replace(/[^\x20-\x7e]/g, '?').slice(0, 100);
  await sns.send(new PublishCommand({ TopicArn: topicArn, Subject: safeSubject, Message: JSON.stringify(message) }));
};

/** Drops the client so the next alert builds one from the current environment (tests). */
export const resetAlertTopic = (): void => {
  client?.destroy();
  client = undefined;
};
