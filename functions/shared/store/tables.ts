/**
 * The gateway's DynamoDB tables, defined once. The CDK stack creates them from this list and the
 * local runtime creates the same tables in the embedded engine, so the two cannot drift.
 */
export type TableName =
  'keys' | 'accounts' | 'channels' | 'models' | 'counters' | 'usage' | 'members' | 'spend' | 'audit' | 'responses';

export interface IndexDefinition {
  readonly name: string;
  readonly partitionKey: string;
  readonly sortKey?: string;
}

export interface TableDefinition {
  readonly partitionKey: string;
  readonly sortKey?: string;
  readonly indexes?: readonly IndexDefinition[];
  /** Attribute holding an epoch-seconds expiry that DynamoDB's TTL deletes on. */
  readonly ttlAttribute?: string;
  readonly pointInTimeRecovery: boolean;
  /** The environment variable that carries the deployed table's name to the functions. */
  readonly environmentVariable: string;
}

export const tableDefinitions: Readonly<Record<TableName, TableDefinition>> = {
  // Looked up by the SHA-256 of the key on every request; admin lookups go through the indexes.
  keys: {
    partitionKey: 'keyHash',
    indexes: [
      { name: 'byId', partitionKey: 'id' },
      { name: 'byAccount', partitionKey: 'accountId', sortKey: 'createdAt' },
    ],
    pointInTimeRecovery: true,
    environmentVariable: 'GATEWAY_TABLE_KEYS',
  },
  accounts: { partitionKey: 'id', pointInTimeRecovery: true, environmentVariable: 'GATEWAY_TABLE_ACCOUNTS' },
  channels: { partitionKey: 'id', pointInTimeRecovery: false, environmentVariable: 'GATEWAY_TABLE_CHANNELS' },
  models: { partitionKey: 'id', pointInTimeRecovery: false, environmentVariable: 'GATEWAY_TABLE_MODELS' },
  // Fixed-window rate-limit counters: one item per scope and window, gone by TTL after the window.
  counters: {
    partitionKey: 'id',
    ttlAttribute: 'expiresAt',
    pointInTimeRecovery: false,
    environmentVariable: 'GATEWAY_TABLE_COUNTERS',
  },
  // One record per request, sorted by time, spread over several partitions per account, per key and
  // per day (usage-partitions.ts), so that no partition key of the table or its indexes runs hot.
  usage: {
    partitionKey: 'partition',
    sortKey: 'sk',
    indexes: [
      { name: 'byKey', partitionKey: 'keyPartition', sortKey: 'sk' },
      { name: 'byDay', partitionKey: 'dayPartition', sortKey: 'sk' },
    ],
    ttlAttribute: 'expiresAt',
    pointInTimeRecovery: true,
    environmentVariable: 'GATEWAY_TABLE_USAGE',
  },
  // Console users by e-mail: the account they belong to and their role there.
  members: {
    partitionKey: 'id',
    indexes: [{ name: 'byAccount', partitionKey: 'accountId', sortKey: 'id' }],
    pointInTimeRecovery: true,
    environmentVariable: 'GATEWAY_TABLE_MEMBERS',
  },
  // An account's USD spending, split into shards that each own a slice of its quota (quota.ts).
  // A period budget's items and alert markers expire some weeks after the period ends (budget-period.ts).
  spend: {
    partitionKey: 'id',
    pointInTimeRecovery: true,
    environmentVariable: 'GATEWAY_TABLE_SPEND',
    ttlAttribute: 'expiresAt',
  },
  // The audit trail: one partition per month, newest first by the time-led sort key; the indexes
  // answer "what did this actor do" and "every change of this kind" without reading other records.
  // Changes are rare (admins and sign-ins), so one partition taking all of a month's writes is far
  // below a partition's 1,000 writes a second (audit-records.ts).
  audit: {
    partitionKey: 'month',
    sortKey: 'sk',
    indexes: [
      { name: 'byActor', partitionKey: 'actorId', sortKey: 'sk' },
      { name: 'byAction', partitionKey: 'action', sortKey: 'sk' },
    ],
    ttlAttribute: 'expiresAt',
    pointInTimeRecovery: true,
    environmentVariable: 'GATEWAY_TABLE_AUDIT',
  },
  // Stored Responses (`previous_response_id`): one partition per account and response, its document
  // compressed and split over parts ('000', '001', …) under the item size limit; gone by TTL.
  responses: {
    partitionKey: 'id',
    sortKey: 'part',
    ttlAttribute: 'expiresAt',
    pointInTimeRecovery: false,
    environmentVariable: 'GATEWAY_TABLE_RESPONSES',
  },
};

export const tableNames = Object.keys(tableDefinitions) as TableName[];

const physicalNames = new Map<TableName, string>();

/**
 * The physical name of a table: from the environment when deployed, `gateway-<name>` locally. Read
 * once per process (a function's environment is fixed at its start): every store call asks, and an
 * environment variable read is a call into the runtime each time.
 */
export const physicalTableName = (table: TableName): string => {
  let name = physicalNames.get(table);
  if (name === undefined) {
    name = process.env[tableDefinitions[table].environmentVariable] ?? `gateway-${table}`;
    physicalNames.set(table, name);
  }
  return name;
};
