import { scanPage } from './documents.js';

/** Every item of a small configuration table, following pagination. */
export const scanAll = async <T>(tableName: string): Promise<T[]> => {
  const items: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await scanPage({ TableName: tableName, ExclusiveStartKey: startKey });
    items.push(...((page.Items ?? []) as T[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
};
