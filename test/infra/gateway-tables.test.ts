import type { CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { tableDefinitions, tableNames, type TableName } from '../../functions/shared/store/tables.js';
import type { ModelGatewayStack } from '../../infra/gateway-stack.js';
import { synthesizeGatewayStack } from './synthesize.js';

interface KeySchemaElement {
  readonly AttributeName: string;
  readonly KeyType: 'HASH' | 'RANGE';
}

interface TableResource {
  readonly DeletionPolicy?: string;
  readonly Properties: {
    readonly BillingMode: string;
    readonly KeySchema: KeySchemaElement[];
    readonly AttributeDefinitions: { AttributeName: string; AttributeType: string }[];
    readonly GlobalSecondaryIndexes?: { IndexName: string; KeySchema: KeySchemaElement[] }[];
    readonly TimeToLiveSpecification?: { AttributeName: string; Enabled: boolean };
    readonly Replicas: { PointInTimeRecoverySpecification?: { PointInTimeRecoveryEnabled: boolean } }[];
    readonly SSESpecification?: { SSEEnabled: boolean; SSEType?: string; KMSMasterKeyId?: unknown };
  };
}

const keySchema = (partitionKey: string, sortKey?: string): KeySchemaElement[] => [
  { AttributeName: partitionKey, KeyType: 'HASH' },
  ...(sortKey ? [{ AttributeName: sortKey, KeyType: 'RANGE' as const }] : []),
];

let stack: ModelGatewayStack;
let template: Template;

const tableResource = (name: TableName): TableResource => {
  const element = stack.tables.tables[name].node.defaultChild as CfnElement;
  const resources = template.toJSON().Resources as Record<string, TableResource>;
  return resources[stack.getLogicalId(element)]!;
};

beforeAll(() => {
  stack = synthesizeGatewayStack();
  template = Template.fromStack(stack);
});

describe('gateway tables', () => {
  it('creates one table per shared definition', () => {
    template.resourceCountIs('AWS::DynamoDB::GlobalTable', tableNames.length);
  });

  it.each(tableNames)('bills the %s table per request', (name) => {
    expect(tableResource(name).Properties.BillingMode).toBe('PAY_PER_REQUEST');
  });

  it.each(tableNames)('keys the %s table as its definition says, with string attributes', (name) => {
    const definition = tableDefinitions[name];
    const { KeySchema, AttributeDefinitions } = tableResource(name).Properties;
    expect(KeySchema).toEqual(keySchema(definition.partitionKey, definition.sortKey));
    expect(AttributeDefinitions.every((attribute) => attribute.AttributeType === 'S')).toBe(true);
  });

  it.each(tableNames)('creates the secondary indexes of the %s table', (name) => {
    const expected = (tableDefinitions[name].indexes ?? []).map((index) => ({
      IndexName: index.name,
      KeySchema: keySchema(index.partitionKey, index.sortKey),
    }));
    const actual = (tableResource(name).Properties.GlobalSecondaryIndexes ?? []).map(({ IndexName, KeySchema }) => ({
      IndexName,
      KeySchema,
    }));
    expect(actual).toEqual(expected);
  });

  it('creates the key lookup and usage indexes the store queries', () => {
    const indexNames = (name: TableName) =>
      (tableResource(name).Properties.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName);
    expect(indexNames('keys')).toEqual(['byId', 'byAccount']);
    expect(indexNames('usage')).toEqual(['byKey', 'byDay']);
  });

  it.each(['counters', 'usage', 'spend'] as const)('expires %s items by TTL on expiresAt', (name) => {
    expect(tableResource(name).Properties.TimeToLiveSpecification).toEqual({
      AttributeName: 'expiresAt',
      Enabled: true,
    });
  });

  it.each(tableNames)('enables TTL on the %s table only when its definition has a TTL attribute', (name) => {
    const ttl = tableResource(name).Properties.TimeToLiveSpecification;
    expect(ttl?.AttributeName).toBe(tableDefinitions[name].ttlAttribute);
  });

  it.each(['keys', 'accounts', 'usage', 'spend'] as const)('keeps point-in-time recovery on the %s table', (name) => {
    expect(tableResource(name).Properties.Replicas[0]?.PointInTimeRecoverySpecification).toEqual({
      PointInTimeRecoveryEnabled: true,
    });
  });

  it.each(tableNames)('sets point-in-time recovery on the %s table as its definition says', (name) => {
    const recovery = tableResource(name).Properties.Replicas[0]?.PointInTimeRecoverySpecification;
    expect(recovery?.PointInTimeRecoveryEnabled ?? false).toBe(tableDefinitions[name].pointInTimeRecovery);
  });

  it.each(tableNames)('encrypts the %s table with the AWS managed key', (name) => {
    expect(tableResource(name).Properties.SSESpecification).toEqual({ SSEEnabled: true, SSEType: 'KMS' });
  });

  it.each(['keys', 'accounts', 'usage', 'spend'] as const)('retains the %s table when the stack is deleted', (name) => {
    expect(tableResource(name).DeletionPolicy).toBe('Retain');
  });

  it('lets the rate-limit counters go with the stack', () => {
    expect(tableResource('counters').DeletionPolicy).toBe('Delete');
  });
});
