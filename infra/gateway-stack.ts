import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { FunctionGroupDefinition } from '../functions/shared/routes.js';
import { BudgetAlertTopic } from './constructs/budget-alert-topic.js';
import { ConsoleAuth } from './constructs/console-auth.js';
import { EphemeralStage } from './constructs/ephemeral-stage.js';
import { GatewayApi, type ApiRoute } from './constructs/gateway-api.js';
import { GatewayFunctions } from './constructs/gateway-functions.js';
import { GatewayMonitoring } from './constructs/gateway-monitoring.js';
import { GatewaySecurity } from './constructs/gateway-security.js';
import { GatewayTables } from './constructs/gateway-tables.js';
import { parseCorsOrigins } from '../functions/shared/http/cors-policy.js';
import { scaleSettingsFrom } from './constructs/scale-settings.js';
import { computeKindFrom, ManagedInstances } from './constructs/managed-instances.js';

/**
 * A `-c` retention in whole days (0 to 3,650; 0 keeps no response), or undefined when not given;
 * anything else fails synthesis.
 */
const retentionDaysFrom = (value: unknown): number | undefined => {
  if (value === undefined || value === null || value === '') return undefined;
  const days = Number(value);
  if (!Number.isInteger(days) || days < 0 || days > 3650)
    throw new Error(`-c responsesRetentionDays must be a whole number of days from 0 to 3650, not '${String(value)}'.`);
  return days;
};

export interface ModelGatewayStackProps extends StackProps {
  /** The routes to serve; the shared route table by default. */
  readonly routes?: readonly ApiRoute[];
  /** The endpoint groups, one function each; the shared group table by default. */
  readonly functionGroups?: Readonly<Record<string, FunctionGroupDefinition>>;
  /** Where a group's handler lives; `functions/<group>/handler.ts` by default. */
  readonly entryFor?: (group: string) => string;
  /** Deletes everything on `cdk destroy`, data and upstream key secrets included (CI stages). */
  readonly ephemeral?: boolean;
}

/** The whole gateway: tables, one function per endpoint group, and the REST API in front. */
/** The function groups whose requests wait on an upstream. */
const RELAYING_GROUPS = ['chat', 'embeddings', 'images', 'audio'];

export class ModelGatewayStack extends Stack {
  readonly tables: GatewayTables;
  readonly functions: GatewayFunctions;
  readonly api: GatewayApi;
  readonly consoleAuth: ConsoleAuth;
  readonly monitoring: GatewayMonitoring;
  readonly security: GatewaySecurity;
  readonly budgetAlerts: BudgetAlertTopic;

  constructor(scope: Construct, id: string, props: ModelGatewayStackProps = {}) {
    super(scope, id, props);
    // `-c corsOrigins=https://app.example,https://other.example` (or `*`): CORS for browser clients.
    const corsOrigins = parseCorsOrigins(this.node.tryGetContext('corsOrigins'));
    const scale = scaleSettingsFrom(this);
    // `-c responsesRetentionDays=7`: how long stored Responses are kept (30 days by default).
    const responsesRetentionDays = retentionDaysFrom(this.node.tryGetContext('responsesRetentionDays'));
    this.tables = new GatewayTables(this, 'Tables');
    this.budgetAlerts = new BudgetAlertTopic(this, 'BudgetAlerts', {
      email: this.node.tryGetContext('budgetAlertEmail') as string | undefined,
    });
    this.functions = new GatewayFunctions(this, 'Functions', {
      tables: this.tables.tables,
      groups: props.functionGroups,
      entryFor: props.entryFor,
      corsOrigins,
      reservedConcurrency: { admin: scale.adminReservedConcurrency },
      responsesRetentionDays,
      alertTopicArn: this.budgetAlerts.topic.topicArn,
    });
    // Upstream host policy, audit retention and the cursor signing secret (`-c` settings there).
    this.security = new GatewaySecurity(this, 'Security', { functions: this.functions.functions });
    // `-c compute=managed-instances`: the relaying functions share multi-concurrency environments.
    if (computeKindFrom(this.node.tryGetContext('compute')) === 'managed-instances') {
      new ManagedInstances(this, 'ManagedInstances', {
        functions: RELAYING_GROUPS.flatMap((group) => this.functions.functions[group] ?? []),
      });
    }
    this.api = new GatewayApi(this, 'Api', {
      functions: this.functions.functions,
      groups: this.functions.groups,
      routes: props.routes,
      throttle: scale.throttle,
      corsOrigins,
      createAccountLogRole: !props.ephemeral,
    });
    this.monitoring = new GatewayMonitoring(this, 'Monitoring', {
      functions: this.functions.functions,
      api: this.api.api,
    });

    // The console's sign-in, read by the console's API and by the admin API (operators' sessions).
    this.consoleAuth = new ConsoleAuth(this, 'ConsoleAuth', {
      functions: ['console', 'admin'].flatMap((group) => this.functions.functions[group] ?? []),
    });
    if (props.ephemeral)
      new EphemeralStage(this, 'Ephemeral', { upstreamSecretPrefix: this.functions.upstreamSecretPrefix });

    new CfnOutput(this, 'ApiUrl', {
      description: 'Base URL of the gateway; requests go to <ApiUrl>/v1/... and <ApiUrl>/admin/v1/...',
      value: this.api.url,
    });
    new CfnOutput(this, 'OpenAiBaseUrl', {
      description: 'The base URL to give OpenAI-compatible SDKs',
      value: `${this.api.url}/v1`,
    });
    // `npm run admin-key` writes the first admin key straight into these two tables.
    new CfnOutput(this, 'KeysTableName', { value: this.tables.tables.keys.tableName });
    new CfnOutput(this, 'AccountsTableName', { value: this.tables.tables.accounts.tableName });
    new CfnOutput(this, 'ConsoleUrl', { description: 'The console', value: `${this.api.url}/console/` });
    new CfnOutput(this, 'ConsoleUserPoolId', { value: this.consoleAuth.userPool.userPoolId });
  }
}
