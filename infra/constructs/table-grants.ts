import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { UsageDelivery } from '../../functions/shared/accounting/usage-delivery.js';
import { tableDefinitions, type TableName } from '../../functions/shared/store/tables.js';

/**
 * Which DynamoDB operations each function may perform, on which table or index, as data. These are
 * exactly the calls its code makes: `test/infra/grants-match-aws-calls.test.ts` runs every path of
 * every function on the local runtime, records each call, and fails on a missing or an extra grant,
 * naming it. A new store call is added here, in the line of the table or index it touches.
 */

/** A DynamoDB API operation the gateway uses; its IAM action is `dynamodb:<operation>`. */
export type TableOperation =
  | 'GetItem'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'Query'
  | 'Scan'
  | 'BatchGetItem'
  | 'BatchWriteItem'
  | 'ConditionCheckItem';

/** A table by its logical name, or one of its indexes as `<table>/index/<index name>`. */
export type TableTarget = TableName | `${TableName}/index/${string}`;

/** A function's DynamoDB access: what it is not given here, it cannot do. */
export type TableGrants = Readonly<Partial<Record<TableTarget, readonly TableOperation[]>>>;

/**
 * Authenticating a key: the key by its hash (and, once a minute, when it was last used), its account
 * (with the member who created it, when a member did, in one BatchGetItem: both may hold a budget),
 * and the catalogue (channels and models, read whole and cached).
 */
const authenticate = {
  keys: ['GetItem', 'UpdateItem'],
  accounts: ['GetItem', 'BatchGetItem'],
  members: ['BatchGetItem'],
  channels: ['Scan'],
  models: ['Scan'],
} as const satisfies TableGrants;

/**
 * A relaying group also admits and meters: it counts its rate-limit windows and reserves and settles
 * the account's spend (`accounting/quota.ts`), each split over shards for busy accounts and read
 * whole (one BatchGetItem) when a shard's slice is full, and puts one usage record per request (the
 * records of requests that end together in one process as one BatchWriteItem) when it stores them
 * itself (`deployedTableGrants`). A settlement that crosses a budget's alert threshold puts the
 * alert's marker in the spend table (PutItem, once).
 */
export const relayGrants: TableGrants = {
  ...authenticate,
  counters: ['GetItem', 'UpdateItem', 'BatchGetItem'],
  spend: ['GetItem', 'PutItem', 'UpdateItem', 'BatchGetItem'],
  usage: ['PutItem', 'BatchWriteItem'],
};

/**
 * Each group's grants. A group not listed here (embeddings, images, audio, …) relays to an
 * upstream and gets `relayGrants`.
 */
export const tableGrantsByGroup: Readonly<Record<string, TableGrants>> = {
  // Also keeps Responses: a document's parts read in one query, put and deleted part by part.
  chat: { ...relayGrants, responses: ['Query', 'PutItem', 'DeleteItem'] },
  admin: {
    keys: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    'keys/index/byId': ['Query'],
    'keys/index/byAccount': ['Query'],
    accounts: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Scan'],
    channels: ['GetItem', 'PutItem', 'DeleteItem', 'Scan'],
    models: ['GetItem', 'PutItem', 'DeleteItem', 'Scan'],
    // One account's spending by its shards' keys; every account's (the listing) in one read of the table.
    spend: ['BatchGetItem', 'Scan'],
    usage: ['Query'],
    'usage/index/byKey': ['Query'],
    'usage/index/byDay': ['Query'],
    members: ['GetItem', 'PutItem', 'DeleteItem', 'Scan'],
    // An account's members, removed with the account.
    'members/index/byAccount': ['Query'],
    // The audit trail: a record per change, read newest first by month, by actor or by action.
    audit: ['PutItem', 'Query'],
    'audit/index/byActor': ['Query'],
    'audit/index/byAction': ['Query'],
  },
  // Lists models: it authenticates and reads the catalogue, with neither rate limit nor usage record.
  models: authenticate,
  // Health and 404/405 answers: no store at all.
  fallback: {},
  // The console: issues, changes and revokes keys, reads the catalogue and usage (every account's for an
  // operator: the day index, and the accounts' names), and lets account admins manage members.
  console: {
    keys: ['GetItem', 'PutItem', 'UpdateItem'],
    'keys/index/byId': ['Query'],
    'keys/index/byAccount': ['Query'],
    accounts: ['GetItem', 'Scan'],
    channels: ['GetItem', 'Scan'],
    models: ['Scan'],
    members: ['GetItem', 'PutItem', 'DeleteItem'],
    'members/index/byAccount': ['Query'],
    spend: ['BatchGetItem'],
    usage: ['Query'],
    'usage/index/byDay': ['Query'],
    // Records sign-ins and key changes; operators read the trail.
    audit: ['PutItem', 'Query'],
    'audit/index/byActor': ['Query'],
    'audit/index/byAction': ['Query'],
  },
};

/** The grants of one group, relay grants for a group not in the table. */
export const tableGrantsFor = (group: string): TableGrants => tableGrantsByGroup[group] ?? relayGrants;

/** What storing usage records takes: a record alone is a PutItem, records that end together one batch. */
const usageWrites: readonly TableOperation[] = ['PutItem', 'BatchWriteItem'];

/** Whether a group's requests leave usage records: the groups granted to write them in batches. */
export const writesUsageRecords = (group: string): boolean =>
  tableGrantsFor(group).usage?.includes('BatchWriteItem') ?? false;

/**
 * A group's grants as the stack deploys them. With usage records delivered as log lines
 * (usage-delivery.ts), a group that leaves them no longer writes the usage table: the usage writer
 * does.
 */
export const deployedTableGrants = (group: string, delivery: UsageDelivery): TableGrants => {
  const grants = tableGrantsFor(group);
  if (delivery === 'store' || !writesUsageRecords(group)) return grants;
  return { ...grants, usage: grants.usage!.filter((operation) => !usageWrites.includes(operation)) };
};

/** The usage writer (functions/usage-writer): stores the logged records, in batches or one alone. */
export const usageWriterGrants: TableGrants = { usage: usageWrites };

/**
 * The IAM statements of a group's table grants: one per table or index, on its own ARN (an index by
 * name, never `index/*`). Fails at synthesis on an index the table does not define.
 */
export const tableGrantStatements = (
  group: string,
  tables: Readonly<Record<TableName, dynamodb.ITableV2>>,
  grants: TableGrants = tableGrantsFor(group),
): iam.PolicyStatement[] =>
  Object.entries(grants).flatMap(([target, operations]) => {
    if (!operations?.length) return [];
    const [table, index] = target.split('/index/') as [TableName, string | undefined];
    if (index !== undefined && !tableDefinitions[table].indexes?.some((defined) => defined.name === index)) {
      throw new Error(`Group '${group}' is granted index '${index}', which table '${table}' does not define.`);
    }
    const arn = index === undefined ? tables[table].tableArn : `${tables[table].tableArn}/index/${index}`;
    return [
      new iam.PolicyStatement({ actions: operations.map((operation) => `dynamodb:${operation}`), resources: [arn] }),
    ];
  });
