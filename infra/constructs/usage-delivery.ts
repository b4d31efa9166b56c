import path from 'node:path';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as logDestinations from 'aws-cdk-lib/aws-logs-destinations';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { USAGE_LINE_FILTER_PATTERN } from '../../functions/shared/accounting/usage-delivery.js';
import { tableDefinitions, type TableName } from '../../functions/shared/store/tables.js';
import { functionEntry, projectRoot } from '../build/esbuild-options.js';
import { EXEC_WRAPPER_ON_LAMBDA } from '../build/exec-wrapper.js';
import { lambdaBundlingOptions } from './lambda-bundling.js';
import { pascalCase } from './names.js';
import { tableGrantStatements, usageWriterGrants } from './table-grants.js';

export interface UsageDeliveryProps {
  readonly tables: Readonly<Record<TableName, dynamodb.ITableV2>>;
  /** The log groups whose usage lines the writer stores, by group name (`GatewayFunctions.usageLogGroups`). */
  readonly logGroups: Readonly<Record<string, logs.ILogGroup>>;
  /** How long the writer's logs are kept: as long as the functions'. */
  readonly logRetention: logs.RetentionDays;
  /** Operator settings (`GATEWAY_LOG_LEVEL`, …; see stack-settings.ts). */
  readonly environment?: Readonly<Record<string, string>>;
  /** The topic the stack's alarms notify. */
  readonly alarmTopic: sns.ITopic;
}

const WRITER = 'usage-writer';

/**
 * `-c usageDelivery=log`: the relaying functions write each usage record as a log line, and a
 * subscription on each of their log groups hands those lines to the usage writer, which stores them
 * in batches. Lambda invokes the writer asynchronously: an invocation that fails is retried, and one
 * that still fails goes to a dead-letter queue, whose first message raises an alarm.
 */
export class UsageDelivery extends Construct {
  readonly writer: nodejs.NodejsFunction;
  readonly logGroup: logs.LogGroup;
  /** The events whose records could not be stored, kept for an operator to send again. */
  readonly deadLetterQueue: sqs.Queue;
  readonly deadLetterAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: UsageDeliveryProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'WriterLogs', { retention: props.logRetention });
    // An own role, as the gateway's functions have: its log group, the usage table's writes, nothing else.
    const role = new iam.Role(this, 'WriterRole', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: 'model-gateway usage writer',
    });
    this.logGroup.grantWrite(role);
    for (const statement of tableGrantStatements(WRITER, props.tables, usageWriterGrants))
      role.addToPrincipalPolicy(statement);

    const entry = functionEntry(WRITER);
    this.writer = new nodejs.NodejsFunction(this, 'Writer', {
      description: 'model-gateway: stores the usage records the relaying functions log',
      entry,
      handler: 'handler',
      projectRoot,
      depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: 256,
      timeout: Duration.minutes(1),
      role,
      logGroup: this.logGroup,
      environment: {
        ...props.environment,
        [tableDefinitions.usage.environmentVariable]: props.tables.usage.tableName,
        // Bundled as the gateway's functions are, wrapper included (infra/build/exec-wrapper.ts).
        AWS_LAMBDA_EXEC_WRAPPER: EXEC_WRAPPER_ON_LAMBDA,
      },
      bundling: lambdaBundlingOptions(WRITER, entry),
    });

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      // SQS's longest: time to find and mend what failed before sending the events again.
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      // Usage records not stored yet, kept like the usage table (an ephemeral stage deletes both).
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.deadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "This queue is itself the dead-letter queue: the usage writer's asynchronous invocations that failed after their retries land here, and its alarm reports the first.",
    });
    this.writer.configureAsyncInvoke({
      // The puts are idempotent: a retried event stores the same items again.
      retryAttempts: 2,
      maxEventAge: Duration.hours(6),
      onFailure: new destinations.SqsDestination(this.deadLetterQueue),
    });

    const destination = new logDestinations.LambdaDestination(this.writer);
    for (const [group, logGroup] of Object.entries(props.logGroups)) {
      new logs.SubscriptionFilter(this, `${pascalCase(group)}Subscription`, {
        logGroup,
        destination,
        filterPattern: logs.FilterPattern.literal(USAGE_LINE_FILTER_PATTERN),
      });
    }

    this.deadLetterAlarm = this.deadLetterQueue
      .metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' })
      .createAlarm(this, 'DeadLetterAlarm', {
        alarmDescription:
          'Usage records could not be stored after retries: their events wait in the usage writer dead-letter queue. Find why in the writer log, then send them again.',
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
    const notify = new actions.SnsAction(props.alarmTopic);
    this.deadLetterAlarm.addAlarmAction(notify);
    this.deadLetterAlarm.addOkAction(notify);
  }
}
