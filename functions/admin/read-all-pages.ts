/**
 * Reading an admin list whole, as its clients do (gatewayctl, the console): a page at a time, since a
 * list of thousands answered in one piece passes what the deployed gateway may answer at once. No
 * imports: the console's browser bundle takes this module as it is.
 */

/** The most items a page holds: the admin API's bound on `limit`. */
export const MAX_PAGE_SIZE = 1000;

/** One page of an admin list, as the API answers it. */
export interface ListPage<T> {
  readonly data: readonly T[];
  /** Present while more remain: the `cursor` of the next page. */
  readonly nextCursor?: string;
}

/** Every item of the list at `path` (which may carry a query of its own), `getPage` reading each page. */
export const readAllPages = async <T>(
  path: string,
  getPage: (pagePath: string) => Promise<ListPage<T>>,
  pageSize: number = MAX_PAGE_SIZE,
): Promise<{ data: T[] }> => {
  const data: T[] = [];
  const separator = path.includes('?') ? '&' : '?';
  let cursor: string | undefined;
  do {
    const page = await getPage(
      `${path}${separator}limit=${pageSize}${cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    data.push(...page.data);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return { data };
};
