import { queryPage } from './documents.js';

/** Every item of one index partition (`<attribute> = value`), following pagination. */
export const queryAllByIndex = async <T>(
  tableName: string,
  indexName: string,
  attribute: string,
  value: string,
): Promise<T[]> => {
  const items: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await queryPage({
      TableName: tableName,
      IndexName: indexName,
      KeyConditionExpression: '#attribute = :value',
      ExpressionAttributeNames: { '#attribute': attribute },
      ExpressionAttributeValues: { ':value': value },
      ExclusiveStartKey: startKey,
    });
    items.push(...((page.Items ?? []) as T[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};
