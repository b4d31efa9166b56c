import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { FunctionGroupDefinition } from '../functions/shared/routes.js';
import { BudgetAlertTopic } from './constructs/budget-alert-topic.js';
import { ConsoleAuth, type ConsoleSso } from './constructs/console-auth.js';
import { EphemeralStage } from './constructs/ephemeral-stage.js';
import { GatewayApi, type ApiRoute } from './constructs/gateway-api.js';
import { GatewayFunctions } from './constructs/gateway-functions.js';
import { GatewayMonitoring } from './constructs/gateway-monitoring.js';
import { GatewaySecurity } from './constructs/gateway-security.js';
import { GatewayTables } from './constructs/gateway-tables.js';
import { GatewayWaf } from './constructs/gateway-waf.js';
import { scaleSettingsFrom } from './constructs/scale-settings.js';
import { ManagedInstances } from './constructs/managed-instances.js';
import { UsageDelivery } from './constructs/usage-delivery.js';
import { stackSetting } from './stack-settings.js';

export interface ModelGatewayStackProps extends StackProps {
  /** The stage: the API Gateway stage's name; `-c stage=…` (`prod`) by default. */
  readonly stage?: string;
  /** The routes to serve; the shared route table by default. */
  readonly routes?: readonly ApiRoute[];
  /** The endpoint groups, one function each; the shared group table by default. */
  readonly functionGroups?: Readonly<Record<string, FunctionGroupDefinition>>;
  /** Where a group's handler lives; `functions/<group>/handler.ts` by default. */
  readonly entryFor?: (group: string) => string;
  /** Deletes everything on `cdk destroy`, data and upstream key secrets included (CI stages). */
  readonly ephemeral?: boolean;
}

/** The function groups whose requests wait on an upstream. */
const RELAYING_GROUPS = ['chat', 'embeddings', 'images', 'audio'];

/** The console's sign-in and MFA steps: they call Cognito, whose account-wide quota a flood must not use up. */
const SIGN_IN_PATHS: ReadonlySet<string> = new Set(['/console/api/session', '/console/api/mfa']);
const isSignIn = (route: ApiRoute) => route.method === 'POST' && SIGN_IN_PATHS.has(route.path);
const isAdmin = (route: ApiRoute) => route.path.startsWith('/admin/');

/** The whole gateway: tables, one function per endpoint group, and the REST API in front. */
export class ModelGatewayStack extends Stack {
  readonly stage: string;
  readonly tables: GatewayTables;
  readonly functions: GatewayFunctions;
  readonly api: GatewayApi;
  readonly consoleAuth: ConsoleAuth;
  readonly monitoring: GatewayMonitoring;
  readonly security: GatewaySecurity;
  readonly budgetAlerts: BudgetAlertTopic;
  readonly managedInstances?: ManagedInstances;
  readonly waf?: GatewayWaf;
  /** With `-c usageDelivery=log` (the default): the usage writer and its subscriptions. */
  readonly usageDelivery?: UsageDelivery;

  constructor(scope: Construct, id: string, props: ModelGatewayStackProps = {}) {
    super(scope, id, props);
    this.stage = props.stage ?? stackSetting(this.node, 'stage');
    const corsOrigins = stackSetting(this.node, 'corsOrigins');
    const scale = scaleSettingsFrom(this);
    const usageDelivery = stackSetting(this.node, 'usageDelivery');
    const environment = operatorEnvironment(this);
    this.tables = new GatewayTables(this, 'Tables');
    this.budgetAlerts = new BudgetAlertTopic(this, 'BudgetAlerts', {
      email: stackSetting(this.node, 'budgetAlertEmail'),
    });
    this.functions = new GatewayFunctions(this, 'Functions', {
      tables: this.tables.tables,
      groups: props.functionGroups,
      entryFor: props.entryFor,
      corsOrigins,
      reservedConcurrency: { admin: scale.adminReservedConcurrency },
      alertTopicArn: this.budgetAlerts.topic.topicArn,
      responsesRetentionDays: stackSetting(this.node, 'responsesRetentionDays'),
      environment,
      usageDelivery,
    });
    // Upstream host policy, audit retention and the cursor signing secret (`-c` settings there).
    this.security = new GatewaySecurity(this, 'Security', { functions: this.functions.functions });
    if (stackSetting(this.node, 'compute') === 'managed-instances') {
      this.managedInstances = new ManagedInstances(this, 'ManagedInstances', {
        functions: RELAYING_GROUPS.flatMap((group) => this.functions.functions[group] ?? []),
      });
    }
    const waf = stackSetting(this.node, 'waf');
    this.api = new GatewayApi(this, 'Api', {
      functions: this.functions.functions,
      groups: this.functions.groups,
      routes: props.routes,
      restApiName: this.stackName,
      stageName: this.stage,
      throttle: scale.throttle,
      methodThrottles: [
        { ...scale.adminThrottle, applies: isAdmin },
        { ...scale.signInThrottle, applies: isSignIn },
      ],
      corsOrigins,
      createAccountLogRole: !props.ephemeral,
      waf,
    });
    if (waf) {
      this.waf = new GatewayWaf(this, 'Waf', {
        api: this.api.api,
        rateLimit: stackSetting(this.node, 'wafRateLimit')!,
        adminRateLimit: stackSetting(this.node, 'wafAdminRateLimit')!,
      });
    }
    this.monitoring = new GatewayMonitoring(this, 'Monitoring', {
      functions: this.functions.functions,
      api: this.api.api,
    });
    if (usageDelivery === 'log') {
      this.usageDelivery = new UsageDelivery(this, 'UsageDelivery', {
        tables: this.tables.tables,
        logGroups: this.functions.usageLogGroups,
        logRetention: this.functions.logRetention,
        environment,
        alarmTopic: this.monitoring.alarmTopic,
      });
      this.monitoring.dashboard.addWidgets(
        new cloudwatch.AlarmStatusWidget({
          title: 'Usage records not stored',
          alarms: [this.usageDelivery.deadLetterAlarm],
          width: 8,
          height: 3,
        }),
      );
    }

    // The console's sign-in, read by the console's API and by the admin API (operators' sessions).
    const consoleUrl = `${this.api.url}/console/`;
    this.consoleAuth = new ConsoleAuth(this, 'ConsoleAuth', {
      functions: ['console', 'admin'].flatMap((group) => this.functions.functions[group] ?? []),
      userPoolName: this.stackName,
      kept: !props.ephemeral,
      adminMfa: stackSetting(this.node, 'consoleAdminMfa') as 'required' | 'optional',
      consoleUrl,
      sso: consoleSsoFrom(this),
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
    new CfnOutput(this, 'ConsoleUrl', { description: 'The console', value: consoleUrl });
    new CfnOutput(this, 'ConsoleUserPoolId', { value: this.consoleAuth.userPool.userPoolId });
  }
}

/** The operator settings that reach the functions as environment variables, where given. */
const operatorEnvironment = (stack: Stack): Record<string, string> => {
  const logLevel = stackSetting(stack.node, 'logLevel');
  const usageRetentionDays = stackSetting(stack.node, 'usageRetentionDays');
  const spendShards = stackSetting(stack.node, 'spendShards');
  return {
    ...(logLevel ? { GATEWAY_LOG_LEVEL: logLevel } : {}),
    ...(usageRetentionDays ? { GATEWAY_USAGE_RETENTION_DAYS: String(usageRetentionDays) } : {}),
    ...(spendShards ? { GATEWAY_SPEND_SHARDS: String(spendShards) } : {}),
  };
};

/** `-c ssoProvider=oidc|saml` with the settings that kind needs; each one missing is named. */
const consoleSsoFrom = (stack: Stack): ConsoleSso | undefined => {
  const kind = stackSetting(stack.node, 'ssoProvider');
  if (!kind) return undefined;
  const required = (
    name: 'ssoIssuer' | 'ssoClientId' | 'ssoClientSecretName' | 'ssoMetadataUrl' | 'ssoDomainPrefix',
  ) => {
    const value = stackSetting(stack.node, name);
    if (!value) throw new Error(`-c ssoProvider=${kind} needs -c ${name}=…`);
    return value;
  };
  const name = stackSetting(stack.node, 'ssoName');
  const domainPrefix = required('ssoDomainPrefix');
  return kind === 'oidc'
    ? {
        kind,
        name,
        domainPrefix,
        issuer: required('ssoIssuer'),
        clientId: required('ssoClientId'),
        clientSecretName: required('ssoClientSecretName'),
      }
    : { kind, name, domainPrefix, metadataUrl: required('ssoMetadataUrl') };
};
