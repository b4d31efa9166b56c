import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import {
  tableDefinitions,
  tableNames,
  type TableDefinition,
  type TableName,
} from '../../functions/shared/store/tables.js';
import { pascalCase } from './names.js';

export interface GatewayTablesProps {
  /** The table list; the shared definitions unless a test passes its own. */
  readonly definitions?: Readonly<Record<TableName, TableDefinition>>;
}

/**
 * What survives `cdk destroy`. Keys, accounts and usage cannot be rebuilt, and channels and models
 * hold configuration an operator may not have kept elsewhere. Counters only matter for one window.
 * A Record over every table name, so a new table cannot be added without deciding.
 */
const removalPolicies: Readonly<Record<TableName, RemovalPolicy>> = {
  keys: RemovalPolicy.RETAIN,
  accounts: RemovalPolicy.RETAIN,
  channels: RemovalPolicy.RETAIN,
  models: RemovalPolicy.RETAIN,
  counters: RemovalPolicy.DESTROY,
  usage: RemovalPolicy.RETAIN,
  members: RemovalPolicy.RETAIN,
  spend: RemovalPolicy.RETAIN,
  // The record of who changed what: it outlives the stack like the data it describes.
  audit: RemovalPolicy.RETAIN,
  // Conversations clients chain by id: kept like the other data a client relies on, though they expire.
  responses: RemovalPolicy.RETAIN,
};

/**
 * Why a table may go without point-in-time recovery (cdk-nag AwsSolutions-DDB3), for the tables
 * whose shared definition turns it off. A table turned off without a reason here fails synthesis.
 */
const pointInTimeRecoveryWaivers: Readonly<Partial<Record<TableName, string>>> = {
  counters:
    'Rate-limit counters live for one window (a minute) and expire by TTL; a restored counter would be stale before the restore finished.',
  channels:
    "Channel configuration is declared in the operator's GATEWAY_CONFIG file and re-applied with `gatewayctl apply` (DESIGN §3.1). The table is retained on stack deletion.",
  models:
    "Model pricing and aliases are declared in the operator's GATEWAY_CONFIG file and re-applied with `gatewayctl apply` (DESIGN §3.1). The table is retained on stack deletion.",
  responses:
    'Stored Responses expire after a retention of days (30 by default) and a client can send the whole conversation again; a restore would bring back conversations their owners deleted. The table is retained on stack deletion.',
};

/** Every key attribute the gateway stores is a string. */
const stringAttribute = (name: string): dynamodb.Attribute => ({ name, type: dynamodb.AttributeType.STRING });

/** The gateway's DynamoDB tables, one per shared definition: on demand, encrypted, indexed as defined. */
export class GatewayTables extends Construct {
  /** Each table by its logical name (`keys`, `accounts`, …). */
  readonly tables: Readonly<Record<TableName, dynamodb.TableV2>>;

  constructor(scope: Construct, id: string, props: GatewayTablesProps = {}) {
    super(scope, id);
    const definitions = props.definitions ?? tableDefinitions;
    const tables = {} as Record<TableName, dynamodb.TableV2>;
    for (const name of tableNames) {
      tables[name] = this.createTable(name, definitions[name]);
    }
    this.tables = tables;
  }

  private createTable(name: TableName, definition: TableDefinition): dynamodb.TableV2 {
    const table = new dynamodb.TableV2(this, pascalCase(name), {
      partitionKey: stringAttribute(definition.partitionKey),
      sortKey: definition.sortKey ? stringAttribute(definition.sortKey) : undefined,
      globalSecondaryIndexes: (definition.indexes ?? []).map((index) => ({
        indexName: index.name,
        partitionKey: stringAttribute(index.partitionKey),
        sortKey: index.sortKey ? stringAttribute(index.sortKey) : undefined,
      })),
      timeToLiveAttribute: definition.ttlAttribute,
      billing: dynamodb.Billing.onDemand(),
      encryption: dynamodb.TableEncryptionV2.awsManagedKey(),
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: definition.pointInTimeRecovery },
      removalPolicy: removalPolicies[name],
    });
    if (!definition.pointInTimeRecovery) {
      const reason = pointInTimeRecoveryWaivers[name];
      if (!reason)
        throw new Error(`Table '${name}' has point-in-time recovery off: say why in pointInTimeRecoveryWaivers.`);
      Validations.of(table).acknowledge({ id: 'AwsSolutions-DDB3', reason });
    }
    return table;
  }
}
