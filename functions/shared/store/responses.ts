import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { parseJson } from '../http/parse-json.js';
import { deleteItem, putItem, queryPage } from './documents.js';
import { physicalTableName } from './tables.js';

/**
 * Stored Responses: one document per response (what the client received, the conversation it was
 * made from, and what the next turn must send back), JSON compressed with gzip and split over items
 * of one partition, `<account id>/<response id>`, parts `000`, `001`, …. The account is part of the
 * key, so another account's id is simply not there. Every part carries the expiry (DynamoDB's TTL
 * deletes it some time after; reads ignore an expired document at once).
 */

/** Bytes of compressed document per item: DynamoDB's item limit is 400 KB, names and key included. */
export const PART_BYTES = 350_000;
/** Retention when the deployment sets none (`GATEWAY_RESPONSES_RETENTION_DAYS`). */
export const DEFAULT_RETENTION_DAYS = 30;

const table = () => physicalTableName('responses');
const partitionOf = (accountId: string, responseId: string) => `${accountId}/${responseId}`;

/**
 * Whether an id can name a stored response at all: the gateway mints `resp_` and 40 base62
 * characters. Anything else (a client's guess, a hostile id past DynamoDB's 2 KB key limit) is simply
 * not found, without a store call that would refuse it.
 */
const mintable = (responseId: string): boolean => /^resp_[0-9A-Za-z]{40}$/.test(responseId);
const partName = (index: number) => String(index).padStart(3, '0');

/**
 * Days a stored response is kept, from the environment (`GATEWAY_RESPONSES_RETENTION_DAYS`, whole
 * days); `0` keeps no new response at all. Anything else unreadable is the default.
 */
export const retentionDays = (): number => {
  const text = process.env.GATEWAY_RESPONSES_RETENTION_DAYS?.trim();
  const configured = text ? Number(text) : Number.NaN;
  return Number.isInteger(configured) && configured >= 0 ? configured : DEFAULT_RETENTION_DAYS;
};

/**
 * Keeps a document for `accountId`, under the retention. The parts after the first go first and the
 * first (which says how many there are) last, so that a reader who finds the first finds them all.
 * Returns the number of parts written.
 */
export const putStoredDocument = async (accountId: string, responseId: string, document: unknown): Promise<number> => {
  // Fastest level: conversations are text that compresses several times over even so, and the
  // compression runs on the request's own CPU time.
  const packed = gzipSync(JSON.stringify(document), { level: constants.Z_BEST_SPEED });
  const parts = Math.max(1, Math.ceil(packed.length / PART_BYTES));
  const id = partitionOf(accountId, responseId);
  const expiresAt = Math.floor(Date.now() / 1000) + retentionDays() * 86_400;
  const item = (index: number) => ({
    id,
    part: partName(index),
    expiresAt,
    body: packed.subarray(index * PART_BYTES, (index + 1) * PART_BYTES),
    ...(index === 0 ? { parts, createdAt: Math.floor(Date.now() / 1000) } : {}),
  });
  const rest = Array.from({ length: parts - 1 }, (_, index) => index + 1);
  await Promise.all(rest.map((index) => putItem({ TableName: table(), Item: item(index) })));
  await putItem({ TableName: table(), Item: item(0) });
  return parts;
};

interface StoredPart {
  readonly part: string;
  readonly body: Uint8Array;
  readonly expiresAt: number;
  readonly parts?: number;
}

/**
 * A document kept for `accountId`, or `undefined` when there is none: never stored, deleted,
 * expired, or another account's. Read strongly consistent: a client chains the next turn as soon as
 * it has the response.
 */
export const getStoredDocument = async (accountId: string, responseId: string): Promise<unknown> => {
  if (!mintable(responseId)) return undefined;
  const found: StoredPart[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await queryPage({
      TableName: table(),
      KeyConditionExpression: 'id = :id',
      ExpressionAttributeValues: { ':id': partitionOf(accountId, responseId) },
      ConsistentRead: true,
      ExclusiveStartKey: startKey,
    });
    found.push(...((page.Items ?? []) as StoredPart[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  const head = found[0];
  if (!head || head.part !== partName(0) || head.expiresAt <= Date.now() / 1000) return undefined;
  const parts = head.parts ?? 1;
  // Parts of a document being written or deleted: as good as absent.
  if (found.length < parts) return undefined;
  const packed = Buffer.concat(found.slice(0, parts).map((part) => part.body));
  return parseJson(gunzipSync(packed).toString('utf8'));
};

/** Deletes a document kept for `accountId`; `false` when there was none to delete. */
export const deleteStoredDocument = async (accountId: string, responseId: string): Promise<boolean> => {
  if (!mintable(responseId)) return false;
  const id = partitionOf(accountId, responseId);
  // The first part goes first: without it the rest reads as absent.
  const { Attributes } = await deleteItem({
    TableName: table(),
    Key: { id, part: partName(0) },
    ReturnValues: 'ALL_OLD',
  });
  const head = Attributes as Partial<StoredPart> | undefined;
  if (!head) return false;
  const rest = Array.from({ length: Math.max(0, (head.parts ?? 1) - 1) }, (_, index) => index + 1);
  await Promise.all(rest.map((index) => deleteItem({ TableName: table(), Key: { id, part: partName(index) } })));
  return (head.expiresAt ?? 0) > Date.now() / 1000;
};
