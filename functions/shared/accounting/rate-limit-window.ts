import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { store } from '../store/client.js';
import { physicalTableName } from '../store/tables.js';

/** What a fixed one-minute window counts: requests or tokens. */
export type LimitDimension = 'requests' | 'tokens';

/** Whose window it is. */
export type LimitScope = 'key' | 'account';

export const WINDOW_MS = 60_000;
/** Counters outlive their window by a few minutes, so a late settlement still finds its item. */
const COUNTER_TTL_SECONDS = 5 * 60;

/** One counter to charge: `amount` units against `limit` in the window starting at `windowStart`. */
export interface WindowCharge {
  readonly dimension: LimitDimension;
  readonly scope: LimitScope;
  readonly ownerId: string;
  readonly limit: number;
  readonly amount: number;
  readonly windowStart: number;
}

/** A charge that went through: the count after it. */
export interface WindowGranted {
  readonly charge: WindowCharge;
  readonly granted: true;
  readonly count: number;
}

/** A charge the window could not take: the count as it stood. */
export interface WindowRefused {
  readonly charge: WindowCharge;
  readonly granted: false;
  readonly count: number;
}

export type WindowResult = WindowGranted | WindowRefused;

export const windowStartOf = (now: number): number => now - (now % WINDOW_MS);

const counterId = (charge: Pick<WindowCharge, 'dimension' | 'scope' | 'ownerId' | 'windowStart'>): string =>
  `${charge.dimension === 'requests' ? 'rpm' : 'tpm'}#${charge.scope}#${charge.ownerId}#${charge.windowStart}`;

const table = () => physicalTableName('counters');

const isConditionFailure = (error: unknown) => (error as Error).name === 'ConditionalCheckFailedException';

const readCount = async (charge: WindowCharge): Promise<number> => {
  const { Item } = await store().send(
    new GetCommand({ TableName: table(), Key: { id: counterId(charge) }, ConsistentRead: true }),
  );
  return typeof Item?.count === 'number' ? Item.count : 0;
};

/**
 * Adds `amount` to the window's counter if, and only if, the counter stays within the limit. One
 * conditional UpdateItem: DynamoDB applies it atomically, so any number of concurrent callers (any
 * number of Lambda instances) can never push a window past its limit together.
 */
export const chargeWindow = async (charge: WindowCharge): Promise<WindowResult> => {
  // A request larger than the whole window can never fit: refuse without a write.
  if (charge.amount > charge.limit) return { charge, granted: false, count: await readCount(charge) };
  try {
    const { Attributes } = await store().send(
      new UpdateCommand({
        TableName: table(),
        Key: { id: counterId(charge) },
        // Guarantees count + amount ≤ limit after the update: a missing item counts as 0, which fits
        // because amount ≤ limit was checked above.
        ConditionExpression: 'attribute_not_exists(#count) OR #count <= :ceiling',
        UpdateExpression: 'ADD #count :amount SET #expiresAt = :expiresAt',
        ExpressionAttributeNames: { '#count': 'count', '#expiresAt': 'expiresAt' },
        ExpressionAttributeValues: {
          ':amount': charge.amount,
          ':ceiling': charge.limit - charge.amount,
          ':expiresAt': Math.floor((charge.windowStart + WINDOW_MS) / 1000) + COUNTER_TTL_SECONDS,
        },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    return { charge, granted: true, count: Number(Attributes?.count ?? charge.amount) };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    // Only on refusal: read the count for the client's `x-ratelimit-remaining-*` headers.
    return { charge, granted: false, count: await readCount(charge) };
  }
};

/**
 * Adds `delta` (which may be negative) to a window's counter without a condition: gives back what a
 * refused admission had taken elsewhere, or corrects a token estimate to the real count. A window
 * already over never refuses a correction; it only refuses new admissions.
 */
export const adjustWindow = async (
  charge: Pick<WindowCharge, 'dimension' | 'scope' | 'ownerId' | 'windowStart'>,
  delta: number,
): Promise<void> => {
  if (delta === 0) return;
  await store().send(
    new UpdateCommand({
      TableName: table(),
      Key: { id: counterId(charge) },
      UpdateExpression: 'ADD #count :delta SET #expiresAt = if_not_exists(#expiresAt, :expiresAt)',
      ExpressionAttributeNames: { '#count': 'count', '#expiresAt': 'expiresAt' },
      ExpressionAttributeValues: {
        ':delta': delta,
        ':expiresAt': Math.floor((charge.windowStart + WINDOW_MS) / 1000) + COUNTER_TTL_SECONDS,
      },
    }),
  );
};
