import type { AwsCall } from '../../functions/shared/aws/aws-call-observer.js';
import { physicalTableName, tableNames, type TableName } from '../../functions/shared/store/tables.js';

/**
 * What IAM must allow for an AWS call the gateway made, as `<action> <resource>` lines that do not
 * depend on account, region or generated names:
 * - `table:<name>` and `table:<name>/index:<index>` for DynamoDB (tables by their logical name),
 * - `upstream-key-secrets` for a secret under the stack's upstream key prefix, `cursor-secret` for the
 *   secret that signs page cursors,
 * - `foundation-model` and `inference-profile` for Bedrock,
 * - `budget-alert-topic` for the stack's budget-alert topic.
 * The same lines are read back from the synthesized template (`granted-permissions.ts`), so the two
 * sides can be compared exactly.
 */
export type Permission = string;

const tableByPhysicalName = (): ReadonlyMap<string, TableName> =>
  new Map(tableNames.map((table) => [physicalTableName(table), table]));

/** DynamoDB: the action is the operation; a Query or Scan with an index is authorised on the index. */
const dynamodbPermissions = (call: AwsCall): Permission[] => {
  const tables = tableByPhysicalName();
  const tableOf = (physical: unknown): string => {
    const table = tables.get(String(physical));
    if (!table) throw new Error(`${call.operation} on '${String(physical)}', which is none of the gateway's tables`);
    return `table:${table}`;
  };
  const input = call.input as {
    TableName?: string;
    IndexName?: string;
    RequestItems?: Record<string, unknown>;
    TransactItems?: Record<string, { TableName: string }>[];
  };
  switch (call.operation) {
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.keys(input.RequestItems ?? {}).map((table) => `dynamodb:${call.operation} ${tableOf(table)}`);
    case 'TransactWriteItems':
    case 'TransactGetItems':
      // A transaction is authorised item by item, as the single-item action on each table.
      return (input.TransactItems ?? []).flatMap((item) =>
        Object.entries(item).map(
          ([kind, target]) => `dynamodb:${transactionItemAction[kind] ?? kind} ${tableOf(target.TableName)}`,
        ),
      );
    default: {
      const resource = input.IndexName
        ? `${tableOf(input.TableName)}/index:${input.IndexName}`
        : tableOf(input.TableName);
      return [`dynamodb:${call.operation} ${resource}`];
    }
  }
};

const transactionItemAction: Readonly<Record<string, string>> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

/** The name the scenario gives the cursor secret (the stack's has a generated one). */
export const CURSOR_SECRET_NAME = 'model-gateway-scenario-cursor-secret';

/** Secrets Manager: by name or ARN, always under the prefix; tags on creation need TagResource too. */
const secretsManagerPermissions = (call: AwsCall, secretPrefix: string): Permission[] => {
  const input = call.input as { SecretId?: string; Name?: string; Tags?: unknown[] };
  const id = String(input.SecretId ?? input.Name ?? '');
  const name = id.startsWith('arn:') ? id.split(':').slice(6).join(':') : id;
  if (name.startsWith(`${CURSOR_SECRET_NAME}-`) || name === CURSOR_SECRET_NAME)
    return [`secretsmanager:${call.operation} cursor-secret`];
  if (!name.startsWith(`${secretPrefix}/`))
    throw new Error(`${call.operation} on secret '${name}', outside '${secretPrefix}/'`);
  const actions = [call.operation, ...(call.operation === 'CreateSecret' && input.Tags?.length ? ['TagResource'] : [])];
  return actions.map((action) => `secretsmanager:${action} upstream-key-secrets`);
};

/** A system-defined cross-region inference profile id: a geography prefix before the model id. */
const inferenceProfileId = /^(?:us|us-gov|eu|apac|jp|au|ca|global)\.[a-z0-9-]+\.[^/]+$/;

/** What Bedrock checks on the caller to subscribe the account to a third-party model (no resource level). */
const marketplaceSubscription: readonly Permission[] = [
  'aws-marketplace:ViewSubscriptions *',
  'aws-marketplace:Subscribe *',
  'aws-marketplace:Unsubscribe *',
];

/**
 * Bedrock: Converse authorises as InvokeModel, ConverseStream as InvokeModelWithResponseStream, on the
 * model it names; an inference profile needs the profile and the foundation models it routes to.
 */
const bedrockPermissions = (call: AwsCall): Permission[] => {
  const action =
    ({ Converse: 'InvokeModel', ConverseStream: 'InvokeModelWithResponseStream' } as Record<string, string>)[
      call.operation
    ] ?? call.operation;
  const modelId = String((call.input as { modelId?: string }).modelId);
  const resources = inferenceProfileId.test(modelId) ? ['inference-profile', 'foundation-model'] : ['foundation-model'];
  return [
    ...resources.map((resource) => `bedrock:${action} ${resource}`),
    // A model's first use subscribes the account through AWS Marketplace, on the caller's permissions.
    ...marketplaceSubscription,
  ];
};

/** SNS: the gateway publishes budget alerts to its own topic, and to no other. */
const snsPermissions = (call: AwsCall, alertTopicArn: string): Permission[] => {
  const topicArn = String((call.input as { TopicArn?: string }).TopicArn);
  if (topicArn !== alertTopicArn) throw new Error(`${call.operation} on topic '${topicArn}', not the alert topic`);
  return [`sns:${call.operation} budget-alert-topic`];
};

/** The permissions one call needs. Fails on a client this mapping does not know yet. */
export const requiredPermissions = (call: AwsCall, secretPrefix: string, alertTopicArn = ''): Permission[] => {
  switch (call.client) {
    case 'DynamoDBClient':
      return dynamodbPermissions(call);
    case 'SecretsManagerClient':
      return secretsManagerPermissions(call, secretPrefix);
    case 'BedrockRuntimeClient':
      return bedrockPermissions(call);
    case 'SNSClient':
      return snsPermissions(call, alertTopicArn);
    default:
      throw new Error(
        `An AWS call through ${call.client} (${call.operation}): teach required-permissions.ts what it needs.`,
      );
  }
};
