/**
 * What a function may do beyond its tables, as data: AWS actions on ARN patterns. Like the table
 * grants, a function gets only what its group is given here.
 */

/**
 * What an ARN pattern is built from: the stack's pseudo parameters, the upstream key folder and the
 * budget-alert topic.
 */
export interface ArnContext {
  readonly partition: string;
  readonly region: string;
  readonly account: string;
  readonly upstreamSecretPrefix: string;
  readonly alertTopicArn: string;
}

export interface ServiceGrant {
  readonly actions: readonly string[];
  readonly resources: readonly ((context: ArnContext) => string)[];
  /**
   * Why the wildcards in `resources` are needed; cdk-nag's acknowledgement of them (AwsSolutions-IAM5).
   * A grant on exact resources has none.
   */
  readonly wildcardReason?: string;
}

/** Every channel's key secret; Secrets Manager appends a random suffix to each name, hence `/*`. */
const upstreamKeySecrets = ({ partition, region, account, upstreamSecretPrefix }: ArnContext) =>
  `arn:${partition}:secretsmanager:${region}:${account}:secret:${upstreamSecretPrefix}/*`;

/** Foundation models in any region: a cross-region inference profile routes to them there. */
const foundationModels = ({ partition }: ArnContext) => `arn:${partition}:bedrock:*::foundation-model/*`;

/**
 * The account's system-defined cross-region inference profiles (`us.…`, `eu.…`, `apac.…`, `global.…`)
 * in any region: a channel may call Bedrock in a region other than the stack's (its `baseUrl`), and
 * the profile is authorised where it is called. The profile's own routing then needs the foundation
 * models above, in each destination region (and region-less for `global.` profiles).
 */
const inferenceProfiles = ({ partition, account }: ArnContext) =>
  `arn:${partition}:bedrock:*:${account}:inference-profile/*`;

/** A relay reads the key of the channel it calls, and nothing else in Secrets Manager. */
export const readUpstreamKeys: ServiceGrant = {
  actions: ['secretsmanager:GetSecretValue'],
  resources: [upstreamKeySecrets],
  wildcardReason:
    "Reads the upstream API key of whichever channel it relays to: one secret per channel under the stack's own prefix, named by channel id with a suffix Secrets Manager chooses.",
};

/**
 * The admin API writes channel keys: creates them (tagged, which Secrets Manager authorises as
 * TagResource too), rotates, removes, and brings back within the recovery window.
 */
export const manageUpstreamKeys: ServiceGrant = {
  actions: [
    'secretsmanager:CreateSecret',
    'secretsmanager:PutSecretValue',
    'secretsmanager:DeleteSecret',
    'secretsmanager:RestoreSecret',
    'secretsmanager:TagResource',
  ],
  resources: [upstreamKeySecrets],
  wildcardReason:
    "Creates, rotates and deletes the upstream API key secret of each channel an admin puts: one per channel id, only under the stack's own prefix; it cannot read any of them.",
};

/** Converse and ConverseStream authorise as InvokeModel and InvokeModelWithResponseStream. */
export const invokeBedrockModels: ServiceGrant = {
  actions: ['bedrock:InvokeModel', 'bedrock:InvokeModelWithResponseStream'],
  resources: [foundationModels, inferenceProfiles],
  wildcardReason:
    'Bedrock channels name their models and inference profiles in configuration at run time, a channel may call Bedrock in another region, and cross-region inference profiles route to foundation models in other regions; only invocation is allowed, and inference profiles only of this account.',
};

/**
 * A third-party model's first use in an account subscribes the account to it through AWS
 * Marketplace, with the caller's permissions: without these, Bedrock answers AccessDeniedException
 * until someone with them invokes the model once. The actions take no resource-level permission.
 */
export const subscribeBedrockModels: ServiceGrant = {
  actions: ['aws-marketplace:ViewSubscriptions', 'aws-marketplace:Subscribe', 'aws-marketplace:Unsubscribe'],
  resources: [() => '*'],
  wildcardReason:
    "AWS Marketplace subscription actions support no resource-level permission. Bedrock needs them on the caller's role to subscribe the account to a third-party model at its first invocation (model access is automatic since the Model access page was retired); the function never calls Marketplace itself.",
};

/** Settling a request's spending may cross a budget's alert threshold: the alert goes to the stack's topic. */
export const publishBudgetAlerts: ServiceGrant = {
  actions: ['sns:Publish'],
  resources: [({ alertTopicArn }) => alertTopicArn],
};

/** A relaying group reads channel keys, and settles spending, which may send a budget alert. */
export const relayServiceGrants: readonly ServiceGrant[] = [readUpstreamKeys, publishBudgetAlerts];

/** Each group's grants, as data. A group not listed here relays to an upstream and gets `relayServiceGrants`. */
export const serviceGrantsByGroup: Readonly<Record<string, readonly ServiceGrant[]>> = {
  admin: [manageUpstreamKeys],
  // Chat completions, messages and responses: the only group with Bedrock channels (DESIGN §4).
  chat: [readUpstreamKeys, invokeBedrockModels, subscribeBedrockModels, publishBudgetAlerts],
  models: [],
  fallback: [],
  // The console's "test this channel" call: one request to a channel, with its upstream key.
  console: [readUpstreamKeys],
};

/** The grants of one group, relay grants for a group not in the table. */
export const serviceGrantsFor = (group: string): readonly ServiceGrant[] =>
  serviceGrantsByGroup[group] ?? relayServiceGrants;

/** Whether a group's function sends budget alerts, and so needs to know the topic. */
export const publishesBudgetAlerts = (group: string): boolean => serviceGrantsFor(group).includes(publishBudgetAlerts);

/** Whether a group's function works with upstream key secrets, and so needs to know their prefix. */
export const usesUpstreamKeys = (group: string): boolean =>
  serviceGrantsFor(group).some((grant) => grant === readUpstreamKeys || grant === manageUpstreamKeys);
