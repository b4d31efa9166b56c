import { tableNames, type TableName } from '../../functions/shared/store/tables.js';

/** What a function may do with one table. */
export type TableAccess = 'read' | 'read-write';

/** A function's DynamoDB access: tables it is not given here, it cannot touch. */
export type TableGrants = Readonly<Partial<Record<TableName, TableAccess>>>;

/** Authenticating a key and resolving its models reads these, and never writes them. */
const catalogRead: TableGrants = { keys: 'read', accounts: 'read', channels: 'read', models: 'read' };

/**
 * A relaying group also counts its rate-limit windows, reserves and settles its account's spend, and
 * records one usage item per request.
 */
export const relayGrants: TableGrants = { ...catalogRead, counters: 'read-write', usage: 'read-write', spend: 'read-write' };

/**
 * Each group's grants, as data. A group not listed here (chat, embeddings, images, audio, …)
 * relays to an upstream and gets `relayGrants`.
 */
export const tableGrantsByGroup: Readonly<Record<string, TableGrants>> = {
  admin: Object.fromEntries(tableNames.map((table) => [table, 'read-write'])),
  // Lists models: it authenticates and reads the catalogue, with neither rate limit nor usage record.
  models: catalogRead,
  // Health and 404/405 answers: no store at all.
  fallback: {},
  // The console: issues and revokes keys, reads the catalogue, usage and who is a member.
  console: { ...catalogRead, keys: 'read-write', usage: 'read', members: 'read' },
};

/** The grants of one group, relay grants for a group not in the table. */
export const tableGrantsFor = (group: string): TableGrants => tableGrantsByGroup[group] ?? relayGrants;
