import path from 'node:path';
import { Duration, Stack, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { functionGroups, type FunctionGroupDefinition } from '../../functions/shared/routes.js';
import {
  upstreamSecretPrefixForStack,
  upstreamSecretPrefixVariable,
} from '../../functions/shared/secrets/upstream-secret-prefix.js';
import { tableDefinitions, tableNames, type TableName } from '../../functions/shared/store/tables.js';
import { functionEntry, projectRoot } from '../build/esbuild-options.js';
import { EXEC_WRAPPER_ON_LAMBDA } from '../build/exec-wrapper.js';
import { lambdaBundlingOptions } from './lambda-bundling.js';
import { pascalCase } from './names.js';
import { publishesBudgetAlerts, serviceGrantsFor, usesUpstreamKeys, type ArnContext } from './service-grants.js';
import { ALERT_TOPIC_VARIABLE } from '../../functions/shared/accounting/alert-topic.js';
import { USAGE_DELIVERY_VARIABLE, type UsageDelivery } from '../../functions/shared/accounting/usage-delivery.js';
import { deployedTableGrants, tableGrantStatements, writesUsageRecords } from './table-grants.js';
import { CORS_ORIGINS_VARIABLE } from '../../functions/shared/http/cors-policy.js';

export interface GatewayFunctionsProps {
  readonly tables: Readonly<Record<TableName, dynamodb.ITableV2>>;
  /** Endpoint groups, one function each; the shared table unless a test passes its own. */
  readonly groups?: Readonly<Record<string, FunctionGroupDefinition>>;
  /** Where a group's handler lives; `functions/<group>/handler.ts` by default. */
  readonly entryFor?: (group: string) => string;
  /** How long function logs are kept. */
  readonly logRetention?: logs.RetentionDays;
  /** The Secrets Manager folder of upstream keys; `model-gateway/<stack name>/channels` by default. */
  readonly upstreamSecretPrefix?: string;
  /** Browser origins allowed (CORS); none by default. */
  readonly corsOrigins?: readonly string[];
  /** Concurrent executions reserved per group (see scale-settings.ts); none for a group not listed. */
  readonly reservedConcurrency?: Readonly<Record<string, number | undefined>>;
  /** Days a stored Response is kept (`-c responsesRetentionDays`, 0 for none); the functions' default (30) when absent. */
  readonly responsesRetentionDays?: number;
  /** The topic the functions that settle spending send budget alerts to (`GATEWAY_ALERT_TOPIC_ARN`). */
  readonly alertTopicArn: string;
  /** Operator settings every function gets (`GATEWAY_LOG_LEVEL`, …; see stack-settings.ts). */
  readonly environment?: Readonly<Record<string, string>>;
  /**
   * Where the functions that leave usage records send them (usage-delivery.ts); `store` by default.
   * With `log` they write log lines, for the usage writer, and are not granted usage writes.
   */
  readonly usageDelivery?: UsageDelivery;
}

/** How long a function trusts a cached key, account or catalogue read (revocation delay, DESIGN §3.2). */
const cacheTtlMilliseconds = 30_000;

/** One Lambda function per endpoint group, each with only the table access its group needs. */
export class GatewayFunctions extends Construct {
  /** Each group's function by group name. */
  readonly functions: Readonly<Record<string, nodejs.NodejsFunction>>;
  /** The group definitions the functions were built from. */
  readonly groups: Readonly<Record<string, FunctionGroupDefinition>>;
  /** Where the functions keep upstream keys in Secrets Manager (`UPSTREAM_SECRET_PREFIX`). */
  readonly upstreamSecretPrefix: string;
  /** Each group's log group by group name. */
  readonly logGroups: Readonly<Record<string, logs.LogGroup>>;
  /** How long the functions' logs are kept. */
  readonly logRetention: logs.RetentionDays;
  /**
   * The log groups that carry usage records, by group name: those of the functions that leave them,
   * with `usageDelivery: 'log'`; none with `store`. The usage writer subscribes to these.
   */
  readonly usageLogGroups: Readonly<Record<string, logs.LogGroup>>;

  constructor(scope: Construct, id: string, props: GatewayFunctionsProps) {
    super(scope, id);
    this.groups = props.groups ?? functionGroups;
    const stack = Stack.of(this);
    this.upstreamSecretPrefix = props.upstreamSecretPrefix ?? upstreamSecretPrefixForStack(stack.stackName);
    const arnContext: ArnContext = {
      partition: stack.partition,
      region: stack.region,
      account: stack.account,
      upstreamSecretPrefix: this.upstreamSecretPrefix,
      alertTopicArn: props.alertTopicArn,
    };
    const entryFor = props.entryFor ?? functionEntry;
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    this.logRetention = logRetention;
    const usageDelivery = props.usageDelivery ?? 'store';
    const logsUsage = (group: string) => usageDelivery === 'log' && writesUsageRecords(group);
    const environment = {
      ...Object.fromEntries(
        tableNames.map((table) => [tableDefinitions[table].environmentVariable, props.tables[table].tableName]),
      ),
      GATEWAY_CACHE_TTL_MS: String(cacheTtlMilliseconds),
      ...(props.corsOrigins?.length ? { [CORS_ORIGINS_VARIABLE]: props.corsOrigins.join(',') } : {}),
      ...(props.responsesRetentionDays === undefined
        ? {}
        : { GATEWAY_RESPONSES_RETENTION_DAYS: String(props.responsesRetentionDays) }),
      ...props.environment,
    };

    const functions: Record<string, nodejs.NodejsFunction> = {};
    const logGroups: Record<string, logs.LogGroup> = {};
    for (const [group, definition] of Object.entries(this.groups)) {
      const name = pascalCase(group);
      const logGroup = new logs.LogGroup(this, `${name}Logs`, { retention: logRetention });
      // An own role without AWSLambdaBasicExecutionRole: it may write to its log group and nowhere else.
      const role = new iam.Role(this, `${name}Role`, {
        assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
        description: `model-gateway ${group} function`,
      });
      logGroup.grantWrite(role);

      const handler = new nodejs.NodejsFunction(this, `${name}Function`, {
        description: `model-gateway: ${group} endpoints`,
        entry: entryFor(group),
        handler: 'handler',
        projectRoot,
        depsLockFilePath: path.join(projectRoot, 'package-lock.json'),
        runtime: lambda.Runtime.NODEJS_24_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: definition.memorySize,
        timeout: Duration.seconds(definition.timeoutSeconds),
        role,
        logGroup,
        environment: {
          ...environment,
          // Node starts with V8 tiering flags (infra/build/exec-wrapper.ts: the bundle carries the script).
          AWS_LAMBDA_EXEC_WRAPPER: EXEC_WRAPPER_ON_LAMBDA,
          ...(usesUpstreamKeys(group) ? { [upstreamSecretPrefixVariable]: this.upstreamSecretPrefix } : {}),
          ...(publishesBudgetAlerts(group) ? { [ALERT_TOPIC_VARIABLE]: props.alertTopicArn } : {}),
          ...(logsUsage(group) ? { [USAGE_DELIVERY_VARIABLE]: usageDelivery } : {}),
        },
        bundling: lambdaBundlingOptions(group, entryFor(group)),
        reservedConcurrentExecutions: props.reservedConcurrency?.[group],
      });
      this.grantTables(group, role, props.tables, usageDelivery);
      grantServices(group, role, arnContext);
      functions[group] = handler;
      logGroups[group] = logGroup;
    }
    this.functions = functions;
    this.logGroups = logGroups;
    this.usageLogGroups = Object.fromEntries(Object.entries(logGroups).filter(([group]) => logsUsage(group)));
  }

  /** The function of one group; fails at synthesis when a route names a group that has none. */
  functionFor(group: string): nodejs.NodejsFunction {
    const handler = this.functions[group];
    if (!handler) throw new Error(`No function for endpoint group '${group}': add it to functionGroups.`);
    return handler;
  }

  private grantTables(
    group: string,
    role: iam.Role,
    tables: GatewayFunctionsProps['tables'],
    usageDelivery: UsageDelivery,
  ): void {
    const grants = deployedTableGrants(group, usageDelivery);
    for (const statement of tableGrantStatements(group, tables, grants)) role.addToPrincipalPolicy(statement);
  }
}

/**
 * A group's grants beyond DynamoDB, one statement each. Resources that are ARN patterns cdk-nag
 * reports as wildcards: each is acknowledged on the role, by its exact text, with the reason the
 * grant gives.
 */
const grantServices = (group: string, role: iam.Role, context: ArnContext): void => {
  for (const grant of serviceGrantsFor(group)) {
    const resources = grant.resources.map((resource) => resource(context));
    role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [...grant.actions], resources }));
    if (grant.wildcardReason === undefined) continue;
    for (const resource of resources) {
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagResourceText(role, resource)}]`,
        reason: grant.wildcardReason,
      });
    }
  }
};

/** A resource as cdk-nag names it in a finding: `Fn::Join` flattened, `{Ref: X}` as `<X>`. */
const nagResourceText = (scope: Construct, resource: string): string => {
  const flatten = (value: unknown): string => {
    if (typeof value === 'string') return value;
    const { 'Fn::Join': join, Ref: ref } = value as { 'Fn::Join'?: [string, unknown[]]; Ref?: string };
    if (join) return join[1].map(flatten).join(join[0]);
    if (ref) return `<${ref}>`;
    return JSON.stringify(value);
  };
  return flatten(Stack.of(scope).resolve(resource));
};
