import { ConditionalCheckFailedException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { decodeFault, encodeFault } from './fault-codec.js';
import type { Fault, ReceivedRequest } from './fake-upstream.js';
import type { FakeHostStore } from './fake-host-store.js';
import type { WireSpec } from './fake-wires.js';

/**
 * Sessions in a DynamoDB table (partition `session`, sort `entry`), so that every instance of a
 * Lambda function serves the same fake: `wires`, a `sequence` counter that orders what is queued and
 * received across instances, `fault#…` and `received#…` items, and an `aborted` counter. Items expire
 * a day after they were written (`expiresAt`, the table's TTL attribute).
 */
const DAY_SECONDS = 24 * 60 * 60;
/** A received body larger than this is kept as its size only: an item holds at most 400 KB. */
const MAX_BODY_CHARS = 300_000;

const expiresAt = () => Math.floor(Date.now() / 1000) + DAY_SECONDS;
const sortable = (sequence: number) => sequence.toString().padStart(12, '0');

export const dynamoDbHostStore = (client: DynamoDBClient, tableName: string): FakeHostStore => {
  const documents = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });

  const nextSequence = async (session: string): Promise<number> => {
    const answer = await documents.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { session, entry: 'sequence' },
        UpdateExpression: 'ADD #value :one SET expiresAt = :expires',
        ExpressionAttributeNames: { '#value': 'value' },
        ExpressionAttributeValues: { ':one': 1, ':expires': expiresAt() },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return Number(answer.Attributes?.value);
  };

  const entries = async (session: string, prefix: string, limit?: number): Promise<Record<string, unknown>[]> => {
    const items: Record<string, unknown>[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await documents.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: '#session = :session AND begins_with(entry, :prefix)',
          ExpressionAttributeNames: { '#session': 'session' },
          ExpressionAttributeValues: { ':session': session, ':prefix': prefix },
          ConsistentRead: true,
          ExclusiveStartKey: start,
          Limit: limit,
        }),
      );
      items.push(...(page.Items ?? []));
      start = limit !== undefined && items.length >= limit ? undefined : page.LastEvaluatedKey;
    } while (start);
    return items;
  };

  const remove = (session: string, entry: string) =>
    documents.send(new DeleteCommand({ TableName: tableName, Key: { session, entry } }));

  /** The oldest queued fault, taken by exactly one instance: whoever deletes it first serves it. */
  const takeFault = async (session: string): Promise<Fault | undefined> => {
    for (;;) {
      const [oldest] = await entries(session, 'fault#', 1);
      if (!oldest) return undefined;
      try {
        await documents.send(
          new DeleteCommand({
            TableName: tableName,
            Key: { session, entry: oldest.entry },
            ConditionExpression: 'attribute_exists(entry)',
          }),
        );
        return decodeFault(JSON.parse(String(oldest.fault)));
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
  };

  return {
    createSession: async (session, wires) => {
      await documents.send(
        new PutCommand({
          TableName: tableName,
          Item: { session, entry: 'wires', wires: JSON.stringify(wires), expiresAt: expiresAt() },
        }),
      );
    },
    wiresOf: async (session) => {
      const answer = await documents.send(
        new GetCommand({ TableName: tableName, Key: { session, entry: 'wires' }, ConsistentRead: true }),
      );
      return answer.Item ? (JSON.parse(String(answer.Item.wires)) as WireSpec[]) : undefined;
    },
    stateOf: (session) => ({
      takeFault: () => takeFault(session),
      record: async (request) => {
        const sequence = await nextSequence(session);
        const text = JSON.stringify(request);
        const kept =
          text.length <= MAX_BODY_CHARS ? text : JSON.stringify({ ...request, body: { omittedChars: text.length } });
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: { session, entry: `received#${sortable(sequence)}`, request: kept, expiresAt: expiresAt() },
          }),
        );
      },
      noteAbortedByClient: async () => {
        await documents.send(
          new UpdateCommand({
            TableName: tableName,
            Key: { session, entry: 'aborted' },
            UpdateExpression: 'ADD #value :one SET expiresAt = :expires',
            ExpressionAttributeNames: { '#value': 'value' },
            ExpressionAttributeValues: { ':one': 1, ':expires': expiresAt() },
          }),
        );
      },
    }),
    addFaults: async (session, faults) => {
      for (const fault of faults) {
        const sequence = await nextSequence(session);
        await documents.send(
          new PutCommand({
            TableName: tableName,
            Item: {
              session,
              entry: `fault#${sortable(sequence)}`,
              fault: JSON.stringify(encodeFault(fault)),
              expiresAt: expiresAt(),
            },
          }),
        );
      }
    },
    clearFaults: async (session) => {
      for (const item of await entries(session, 'fault#')) await remove(session, String(item.entry));
    },
    received: async (session) =>
      (await entries(session, 'received#')).map((item) => JSON.parse(String(item.request)) as ReceivedRequest),
    abortedByClient: async (session) => {
      const answer = await documents.send(
        new GetCommand({ TableName: tableName, Key: { session, entry: 'aborted' }, ConsistentRead: true }),
      );
      return Number(answer.Item?.value ?? 0);
    },
    deleteSession: async (session) => {
      for (const item of await entries(session, '')) await remove(session, String(item.entry));
    },
  };
};
