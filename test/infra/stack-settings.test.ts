import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../infra/build/esbuild-options.js';
import {
  DEFAULT_ADMIN_THROTTLE,
  DEFAULT_SIGN_IN_THROTTLE,
  stackSettings,
  type StackSettingName,
} from '../../infra/stack-settings.js';
import { keptOnDestroy, ofType, synthesizeStage, type Resources, type SynthesizedStage } from './synthesize-stage.js';

/**
 * Every `-c` setting the stack reads, synthesized as `cdk synth -c …` does, cdk-nag on: each row
 * names the settings it covers, and a setting without a row fails. The list of settings is
 * `infra/stack-settings.ts`, which is the only place the stack reads context from (checked below),
 * so a new setting cannot go untested.
 */

interface Row {
  readonly title: string;
  readonly settings: readonly StackSettingName[];
  readonly context: Record<string, string>;
  readonly check: (stage: SynthesizedStage) => void;
}

/** Each gateway function's properties, by the group its description names. */
const functionsByGroup = (resources: Resources): Record<string, Record<string, any>> =>
  Object.fromEntries(
    ofType(resources, 'AWS::Lambda::Function')
      .map((resource) => resource.Properties)
      .filter((properties) => /^model-gateway: .* endpoints$/.test(String(properties.Description ?? '')))
      .map((properties) => [/^model-gateway: (.*) endpoints$/.exec(String(properties.Description))![1]!, properties]),
  );

const environmentOf = (resources: Resources, group: string): Record<string, unknown> =>
  functionsByGroup(resources)[group]?.Environment?.Variables ?? {};

const onlyOne = (resources: Resources, type: string) => {
  const found = ofType(resources, type);
  expect(found).toHaveLength(1);
  return found[0]!.Properties;
};

const methodSettings = (resources: Resources): Record<string, any>[] =>
  onlyOne(resources, 'AWS::ApiGateway::Stage').MethodSettings ?? [];

const settingFor = (resources: Resources, resourcePath: string, httpMethod: string) =>
  methodSettings(resources).find(
    (setting) => setting.ResourcePath === resourcePath && setting.HttpMethod === httpMethod,
  );

const adminPaths = (resources: Resources) =>
  methodSettings(resources).filter((setting) => String(setting.ResourcePath).startsWith('/~1admin~1v1'));

/** What a stage's name must reach: the stack, REST API, API Gateway stage, alarm, pool and log groups. */
const expectNamedAfter = ({ stack, resources }: SynthesizedStage, stage: string) => {
  const stackName = `ModelGateway-${stage}`;
  expect(stack.stackName).toBe(stackName);
  expect(onlyOne(resources, 'AWS::ApiGateway::RestApi').Name).toBe(stackName);
  expect(onlyOne(resources, 'AWS::ApiGateway::Stage').StageName).toBe(stage);
  expect(onlyOne(resources, 'AWS::Cognito::UserPool').UserPoolName).toBe(stackName);
  const apiAlarms = ofType(resources, 'AWS::CloudWatch::Alarm').filter(
    (alarm) => alarm.Properties.Namespace === 'AWS/ApiGateway',
  );
  expect(apiAlarms).toHaveLength(1);
  expect(apiAlarms[0]!.Properties.Dimensions).toEqual([{ Name: 'ApiName', Value: stackName }]);
  // A log group either gets a name CloudFormation generates from the stack's, or one with the stage.
  for (const logGroup of ofType(resources, 'AWS::Logs::LogGroup')) {
    const name: unknown = logGroup.Properties.LogGroupName;
    if (name !== undefined) expect(JSON.stringify(name)).toContain(`/${stage}`);
  }
};

const rows: readonly Row[] = [
  {
    title: 'no setting: the prod stage, kept, deployable into a new account',
    settings: [],
    context: {},
    check: (stage) => {
      expectNamedAfter(stage, 'prod');
      // No reserved concurrency: a new account's pool (often 10) cannot reserve any.
      for (const properties of Object.values(functionsByGroup(stage.resources)))
        expect(properties.ReservedConcurrentExecutions).toBeUndefined();
      // The pool and its users outlive the stack.
      const [pool] = ofType(stage.resources, 'AWS::Cognito::UserPool');
      expect(pool!.DeletionPolicy).toBe('Retain');
      expect(pool!.Properties.DeletionProtection).toBe('ACTIVE');
      // No WAF unless asked for.
      expect(ofType(stage.resources, 'AWS::WAFv2::WebACL')).toEqual([]);
    },
  },
  {
    title: 'the console app client: no hosted-UI flow, no callback, e-mail not writable, names in any case',
    settings: [],
    context: {},
    check: ({ resources }) => {
      const client = onlyOne(resources, 'AWS::Cognito::UserPoolClient');
      expect(client.AllowedOAuthFlows).toBeUndefined();
      expect(client.AllowedOAuthFlowsUserPoolClient).not.toBe(true);
      expect(JSON.stringify(client)).not.toContain('example.com');
      expect(client.WriteAttributes).toEqual(expect.any(Array));
      expect(client.WriteAttributes).not.toContain('email');
      expect(onlyOne(resources, 'AWS::Cognito::UserPool').UsernameConfiguration).toEqual({ CaseSensitive: false });
    },
  },
  {
    title: 'a kept stage of another name',
    settings: ['stage'],
    context: { stage: 'dev' },
    check: (stage) => {
      expectNamedAfter(stage, 'dev');
      expect(stage.stack.stage).toBe('dev');
      expect(ofType(stage.resources, 'AWS::Cognito::UserPool')[0]!.DeletionPolicy).toBe('Retain');
      expect(ofType(stage.resources, 'Custom::StageSecretsCleanup')).toEqual([]);
    },
  },
  {
    title: 'a CI stage: named after its run, and nothing retained or protected, in either of its stacks',
    settings: ['stage'],
    context: { stage: 'ci-4242' },
    check: (stage) => {
      expectNamedAfter(stage, 'ci-4242');
      expect(keptOnDestroy(stage.resources)).toEqual([]);
      expect(stage.fixtures).toBeDefined();
      expect(keptOnDestroy(stage.fixtures!.resources)).toEqual([]);
      expect(stage.fixtures!.stack.terminationProtection).not.toBe(true);
      expect(stage.stack.terminationProtection).not.toBe(true);
    },
  },
  {
    title: '-c ephemeral=true makes any stage leave nothing behind',
    settings: ['ephemeral'],
    context: { stage: 'preview', ephemeral: 'true' },
    check: (stage) => {
      expectNamedAfter(stage, 'preview');
      expect(keptOnDestroy(stage.resources)).toEqual([]);
      expect(ofType(stage.resources, 'Custom::StageSecretsCleanup')).toHaveLength(1);
    },
  },
  {
    title: 'managed instances: fewest environments, published explicitly, logs kept a while, DynamoDB off the NAT',
    settings: ['compute'],
    context: { compute: 'managed-instances' },
    check: ({ resources }) => {
      const provider = onlyOne(resources, 'AWS::Lambda::CapacityProvider');
      const logGroupId = provider.TelemetryConfig?.LoggingConfig?.LogGroup?.Ref as string;
      expect(resources[logGroupId]?.Properties.RetentionInDays).toBeGreaterThan(0);
      const relaying = Object.entries(functionsByGroup(resources)).filter(
        ([, properties]) => properties.CapacityProviderConfig !== undefined,
      );
      expect(relaying.map(([group]) => group).sort()).toEqual(['audio', 'chat', 'embeddings', 'images']);
      for (const [, properties] of relaying) {
        expect(properties.PublishToLatestPublished).toBe(true);
        expect(properties.FunctionScalingConfig).toEqual({ MinExecutionEnvironments: 1 });
      }
      const endpoints = ofType(resources, 'AWS::EC2::VPCEndpoint');
      expect(
        endpoints.map((endpoint) => [
          endpoint.Properties.VpcEndpointType,
          JSON.stringify(endpoint.Properties.ServiceName),
        ]),
      ).toEqual([['Gateway', expect.stringContaining('.dynamodb')]]);
    },
  },
  {
    title: 'CORS origins reach the functions and the preflight',
    settings: ['corsOrigins'],
    context: { corsOrigins: 'https://app.example.org' },
    check: ({ resources }) => {
      expect(environmentOf(resources, 'chat').GATEWAY_CORS_ORIGINS).toBe('https://app.example.org');
      expect(
        ofType(resources, 'AWS::ApiGateway::Method').some((method) => method.Properties.HttpMethod === 'OPTIONS'),
      ).toBe(true);
    },
  },
  {
    title: 'the alarm topic mails the address given',
    settings: ['alarmEmail'],
    context: { alarmEmail: 'ops@example.org' },
    check: ({ resources }) => {
      expect(onlyOne(resources, 'AWS::SNS::Subscription')).toMatchObject({
        Protocol: 'email',
        Endpoint: 'ops@example.org',
      });
    },
  },
  {
    title: 'the budget-alert topic mails the address given',
    settings: ['budgetAlertEmail'],
    context: { budgetAlertEmail: 'finance@example.org' },
    check: ({ resources }) => {
      const mailed = ofType(resources, 'AWS::SNS::Subscription').map((subscription) => subscription.Properties);
      expect(mailed).toEqual([expect.objectContaining({ Protocol: 'email', Endpoint: 'finance@example.org' })]);
    },
  },
  {
    title: 'per-account metrics can be turned off',
    settings: ['accountMetrics'],
    context: { accountMetrics: 'false' },
    check: ({ resources }) => {
      expect(environmentOf(resources, 'chat').GATEWAY_ACCOUNT_METRICS).toBe('off');
    },
  },
  {
    title: 'reserved concurrency for the admin function only when asked for',
    settings: ['adminReservedConcurrency'],
    context: { adminReservedConcurrency: '5' },
    check: ({ resources }) => {
      const reserved = Object.entries(functionsByGroup(resources)).filter(
        ([, properties]) => properties.ReservedConcurrentExecutions !== undefined,
      );
      expect(reserved.map(([group, properties]) => [group, properties.ReservedConcurrentExecutions])).toEqual([
        ['admin', 5],
      ]);
    },
  },
  {
    title: "the stage's own throttle",
    settings: ['throttleRps', 'throttleBurst'],
    context: { throttleRps: '300', throttleBurst: '600' },
    check: ({ resources }) => {
      expect(settingFor(resources, '/*', '*')).toMatchObject({ ThrottlingRateLimit: 300, ThrottlingBurstLimit: 600 });
    },
  },
  {
    title: 'default method throttles on every admin method and on the console sign-in',
    settings: [],
    context: {},
    check: ({ resources }) => {
      const adminMethods = ofType(resources, 'AWS::ApiGateway::Method').filter((method) =>
        JSON.stringify(method.Properties.Integration ?? {}).includes('FunctionsAdminFunction'),
      );
      expect(adminPaths(resources).length).toBeGreaterThanOrEqual(20);
      expect(adminPaths(resources)).toHaveLength(adminMethods.length);
      for (const setting of adminPaths(resources)) {
        expect(setting).toMatchObject({
          ThrottlingRateLimit: DEFAULT_ADMIN_THROTTLE.rateLimit,
          ThrottlingBurstLimit: DEFAULT_ADMIN_THROTTLE.burstLimit,
          LoggingLevel: 'ERROR',
          DataTraceEnabled: false,
        });
      }
      expect(settingFor(resources, '/~1console~1api~1session', 'POST')).toMatchObject({
        ThrottlingRateLimit: DEFAULT_SIGN_IN_THROTTLE.rateLimit,
        ThrottlingBurstLimit: DEFAULT_SIGN_IN_THROTTLE.burstLimit,
      });
      // Only the sign-in of the console is throttled apart: its other routes share the stage's limit.
      expect(settingFor(resources, '/~1console~1api~1keys', 'GET')).toBeUndefined();
    },
  },
  {
    title: 'the admin throttle is a setting',
    settings: ['adminThrottleRps', 'adminThrottleBurst'],
    context: { adminThrottleRps: '7', adminThrottleBurst: '9' },
    check: ({ resources }) => {
      expect(adminPaths(resources).length).toBeGreaterThanOrEqual(20);
      for (const setting of adminPaths(resources))
        expect(setting).toMatchObject({ ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 });
    },
  },
  {
    title: 'the sign-in throttle is a setting',
    settings: ['signInThrottleRps', 'signInThrottleBurst'],
    context: { signInThrottleRps: '2', signInThrottleBurst: '3' },
    check: ({ resources }) => {
      for (const resourcePath of ['/~1console~1api~1session', '/~1console~1api~1mfa'])
        expect(settingFor(resources, resourcePath, 'POST')).toMatchObject({
          ThrottlingRateLimit: 2,
          ThrottlingBurstLimit: 3,
        });
    },
  },
  {
    title: 'a WAF web ACL with per-address rate rules, on the stage',
    settings: ['waf', 'wafRateLimit', 'wafAdminRateLimit'],
    context: { waf: 'true', wafRateLimit: '5000', wafAdminRateLimit: '120' },
    check: ({ resources }) => {
      const acl = onlyOne(resources, 'AWS::WAFv2::WebACL');
      expect(acl.Scope).toBe('REGIONAL');
      const limits = (acl.Rules as any[]).map((rule) => [rule.Action, rule.Statement.RateBasedStatement?.Limit]);
      expect(limits).toEqual([
        [{ Block: {} }, 120],
        [{ Block: {} }, 5000],
      ]);
      expect(JSON.stringify(acl.Rules[0].Statement.RateBasedStatement.ScopeDownStatement)).toContain('/admin/v1/');
      const association = onlyOne(resources, 'AWS::WAFv2::WebACLAssociation');
      expect(JSON.stringify(association.ResourceArn)).toContain('/stages/');
    },
  },
  {
    title: 'MFA for console admins: required by default, optional when set',
    settings: ['consoleAdminMfa'],
    context: { consoleAdminMfa: 'optional' },
    check: ({ resources }) => {
      expect(environmentOf(resources, 'console').GATEWAY_CONSOLE_ADMIN_MFA).toBe('optional');
      expect(environmentOf(resources, 'admin').GATEWAY_CONSOLE_ADMIN_MFA).toBe('optional');
      expect(environmentOf(resources, 'chat').GATEWAY_CONSOLE_ADMIN_MFA).toBeUndefined();
      expect(environmentOf(synthesizeOnce({}).resources, 'console').GATEWAY_CONSOLE_ADMIN_MFA).toBe('required');
    },
  },
  {
    title: 'operator settings reach every function',
    settings: ['logLevel', 'usageRetentionDays', 'spendShards'],
    context: { logLevel: 'warn', usageRetentionDays: '90', spendShards: '4' },
    check: ({ resources }) => {
      const groups = Object.keys(functionsByGroup(resources));
      expect(groups.length).toBeGreaterThan(5);
      for (const group of groups) {
        expect(environmentOf(resources, group)).toMatchObject({
          GATEWAY_LOG_LEVEL: 'warn',
          GATEWAY_USAGE_RETENTION_DAYS: '90',
          GATEWAY_SPEND_SHARDS: '4',
        });
      }
    },
  },
  {
    title: 'usage records logged for the usage writer by default, put by the functions themselves with store',
    settings: ['usageDelivery'],
    context: { usageDelivery: 'store' },
    check: ({ resources }) => {
      const delivered = (stage: Resources) =>
        Object.keys(functionsByGroup(stage)).filter((group) => environmentOf(stage, group).GATEWAY_USAGE_DELIVERY);
      expect(delivered(resources)).toEqual([]);
      expect(ofType(resources, 'AWS::Logs::SubscriptionFilter', 'AWS::SQS::Queue')).toEqual([]);
      const byDefault = synthesizeOnce({}).resources;
      expect(delivered(byDefault).sort()).toEqual(['audio', 'chat', 'embeddings', 'images']);
      expect(ofType(byDefault, 'AWS::Logs::SubscriptionFilter')).toHaveLength(4);
    },
  },
  {
    title: 'stored Responses are kept as long as set, none with 0',
    settings: ['responsesRetentionDays'],
    context: { responsesRetentionDays: '0' },
    check: ({ resources }) => {
      expect(environmentOf(resources, 'chat').GATEWAY_RESPONSES_RETENTION_DAYS).toBe('0');
      expect(environmentOf(synthesizeOnce({}).resources, 'chat').GATEWAY_RESPONSES_RETENTION_DAYS).toBeUndefined();
    },
  },
  {
    title: 'the upstream host policy and the audit retention reach every function',
    settings: ['upstreamAllowedHosts', 'upstreamPrivateAddresses', 'auditRetentionDays'],
    context: {
      upstreamAllowedHosts: 'api.openai.com,10.0.0.0/8',
      upstreamPrivateAddresses: 'allow',
      auditRetentionDays: '90',
    },
    check: ({ resources }) => {
      for (const group of ['admin', 'chat', 'console'])
        expect(environmentOf(resources, group)).toMatchObject({
          GATEWAY_UPSTREAM_ALLOWED_HOSTS: 'api.openai.com,10.0.0.0/8',
          GATEWAY_UPSTREAM_PRIVATE_ADDRESSES: 'allow',
          GATEWAY_AUDIT_RETENTION_DAYS: '90',
        });
    },
  },
  {
    title: 'SSO through OIDC: the client secret stays in Secrets Manager, the tokens cannot change attributes',
    settings: ['ssoProvider', 'ssoName', 'ssoIssuer', 'ssoClientId', 'ssoClientSecretName', 'ssoDomainPrefix'],
    context: {
      ssoProvider: 'oidc',
      ssoName: 'Corp',
      ssoIssuer: 'https://login.example.org',
      ssoClientId: 'gateway-console',
      ssoClientSecretName: 'corp/gateway-console',
      ssoDomainPrefix: 'gateway-corp',
    },
    check: ({ resources }) => {
      const provider = onlyOne(resources, 'AWS::Cognito::UserPoolIdentityProvider');
      expect(provider).toMatchObject({ ProviderName: 'Corp', ProviderType: 'OIDC' });
      expect(provider.ProviderDetails).toMatchObject({
        oidc_issuer: 'https://login.example.org',
        client_id: 'gateway-console',
        client_secret: '{{resolve:secretsmanager:corp/gateway-console:SecretString:::}}',
      });
      expect(onlyOne(resources, 'AWS::Cognito::UserPoolDomain').Domain).toBe('gateway-corp');
      const clients = ofType(resources, 'AWS::Cognito::UserPoolClient').map((client) => client.Properties);
      const sso = clients.find((client) => client.AllowedOAuthFlows)!;
      expect(sso.AllowedOAuthFlows).toEqual(['code']);
      expect(sso.AllowedOAuthScopes).not.toContain('aws.cognito.signin.user.admin');
      expect(JSON.stringify(sso.CallbackURLs)).toContain('/console/');
      // The console sends the token endpoint the same redirect_uri the client registered.
      const ssoFunctions = ofType(resources, 'AWS::Lambda::Function')
        .map((fn) => fn.Properties.Environment?.Variables ?? {})
        .filter((variables) => variables.GATEWAY_CONSOLE_SSO_CLIENT_ID);
      expect(ssoFunctions.length).toBeGreaterThan(0);
      for (const variables of ssoFunctions)
        expect(variables.GATEWAY_CONSOLE_SSO_REDIRECT_URI).toEqual(sso.CallbackURLs[0]);
      // The password client still cannot write the e-mail.
      expect(clients.find((client) => !client.AllowedOAuthFlows)!.WriteAttributes).not.toContain('email');
    },
  },
  {
    title: 'SSO through SAML',
    settings: ['ssoProvider', 'ssoMetadataUrl', 'ssoDomainPrefix'],
    context: { ssoProvider: 'saml', ssoMetadataUrl: 'https://idp.example.org/metadata', ssoDomainPrefix: 'gw-saml' },
    check: ({ resources }) => {
      const provider = onlyOne(resources, 'AWS::Cognito::UserPoolIdentityProvider');
      expect(provider).toMatchObject({ ProviderName: 'SSO', ProviderType: 'SAML' });
      expect(provider.ProviderDetails.MetadataURL).toBe('https://idp.example.org/metadata');
    },
  },
];

/** Rows with the same context share one synthesis. */
const synthesized = new Map<string, SynthesizedStage>();
const synthesizeOnce = (context: Record<string, string>) => {
  const key = JSON.stringify(context);
  if (!synthesized.has(key)) synthesized.set(key, synthesizeStage(context));
  return synthesized.get(key)!;
};

describe.each(rows)('-c settings: $title', (row) => {
  let stage: SynthesizedStage;
  beforeAll(() => {
    stage = synthesizeOnce(row.context);
  }, 120_000);

  it('synthesizes with no unacknowledged cdk-nag finding', () => {
    expect(stage.nagFindings).toEqual([]);
  });

  it('does what the setting says', () => {
    row.check(stage);
  });
});

describe('the list of settings', () => {
  it('has a row for every setting the stack reads', () => {
    const covered = new Set(rows.flatMap((row) => row.settings));
    expect(Object.keys(stackSettings).filter((name) => !covered.has(name as StackSettingName))).toEqual([]);
  });

  it('is where the stack reads context: no other stack file calls tryGetContext', () => {
    const infra = path.join(projectRoot, 'infra');
    // The local runtime takes no context; the CI setup is an app of its own, with its own settings.
    const skipped = new Set(['local', 'ci-setup']);
    const files = (readdirSync(infra, { recursive: true }) as string[])
      .filter((file) => file.endsWith('.ts') && !skipped.has(file.split(path.sep)[0]!))
      .filter((file) => file !== 'stack-settings.ts');
    const readers = files.filter((file) =>
      /\b(tryGetContext|getContext)\s*\(/.test(readFileSync(path.join(infra, file), 'utf8')),
    );
    expect(readers).toEqual([]);
  });

  it('is listed in docs/deploying.md, each setting with its default', () => {
    const doc = readFileSync(path.join(projectRoot, 'docs', 'deploying.md'), 'utf8');
    for (const [name, definition] of Object.entries(stackSettings)) {
      const line = doc.split('\n').find((text) => text.startsWith(`| \`${name}\``));
      expect({ name, line: line ?? 'missing' }).toEqual({
        name,
        line: expect.stringContaining(definition.defaultText),
      });
    }
  });

  it.each([
    [{ compute: 'fargate' }, /-c compute=fargate/],
    [{ waf: 'yes' }, /-c waf takes true or false/],
    [{ adminThrottleRps: '0' }, /-c adminThrottleRps/],
    [{ consoleAdminMfa: 'never' }, /-c consoleAdminMfa/],
    [{ logLevel: 'verbose' }, /-c logLevel/],
    [{ usageRetentionDays: '1.5' }, /-c usageRetentionDays/],
    [{ usageDelivery: 'batch' }, /-c usageDelivery=batch/],
    [{ ssoProvider: 'oidc', ssoDomainPrefix: 'x' }, /-c ssoIssuer/],
    [{ ssoProvider: 'saml' }, /-c ssoDomainPrefix/],
    [{ alarmEmail: 'not-an-address' }, /-c alarmEmail/],
  ])('refuses %j at synthesis, naming the setting', (context, message) => {
    expect(() => synthesizeStage(context)).toThrow(message);
  });
});
