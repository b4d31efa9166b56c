/**
 * The SNS client and the one command the gateway sends, in a module imported only when a budget
 * alert is published (`alert-topic.ts`): a function that never sends an alert never loads it, and its
 * bundle carries it as a separate chunk.
 */
export { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
