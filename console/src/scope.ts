import { callList, type ConsoleUser } from './api.js';
import { h } from './dom.js';

/**
 * The account a page shows. A member or an account admin always sees their own; an operator picks
 * any account (or, on pages that can, every account) with the picker at the top of the page. The
 * choice is kept for this tab, so moving between pages keeps it. The server decides what each one
 * may see: the picker only names what the operator asks for.
 */
export interface AccountSummary {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly models: string[] | null;
  readonly quota: { limit: number | null; used: number };
  readonly rateLimit?: { rpm?: number; tpm?: number } | null;
  readonly createdAt: string;
}

export const EVERY_ACCOUNT = '';
const CHOSEN = 'model-gateway.account';

export const isOperator = (user: ConsoleUser): boolean => user.role === 'admin';

/** Every account, for operators (the admin API); empty for everyone else. */
export const listAccounts = async (user: ConsoleUser): Promise<AccountSummary[]> =>
  isOperator(user) ? (await callList<AccountSummary>('/admin/v1/accounts')).data : [];

/**
 * The account chosen: for an operator the one picked last (every account, `EVERY_ACCOUNT`, where
 * `allowEvery`), else their own.
 */
export const chosenAccount = (user: ConsoleUser, accounts: readonly AccountSummary[], allowEvery: boolean): string => {
  if (!isOperator(user)) return user.accountId;
  const stored = sessionStorage.getItem(CHOSEN);
  if (stored === EVERY_ACCOUNT && allowEvery) return EVERY_ACCOUNT;
  if (stored && accounts.some((account) => account.id === stored)) return stored;
  return allowEvery ? EVERY_ACCOUNT : user.accountId;
};

/** The picker: a labelled select that remembers the choice and redraws the page. */
export const accountPicker = (
  accounts: readonly AccountSummary[],
  chosen: string,
  allowEvery: boolean,
  redraw: () => void,
): HTMLElement =>
  h(
    'label',
    { class: 'picker' },
    'Account ',
    h(
      'select',
      {
        id: 'account-picker',
        onchange: (event: Event) => {
          sessionStorage.setItem(CHOSEN, (event.target as HTMLSelectElement).value);
          redraw();
        },
      },
      allowEvery ? h('option', { value: EVERY_ACCOUNT, selected: chosen === EVERY_ACCOUNT }, 'All accounts') : null,
      accounts.map((account) =>
        h(
          'option',
          { value: account.id, selected: account.id === chosen },
          `${account.name}${account.status === 'active' ? '' : ` (${account.status})`}`,
        ),
      ),
    ),
  );

/** What an account-scoped page gets: the account shown, its name, and the picker to put on the page. */
export interface PageScope {
  /** The account shown; `EVERY_ACCOUNT` for every account (operators, where the page allows). */
  readonly accountId: string;
  readonly accountName: string;
  readonly accounts: readonly AccountSummary[];
  /** The picker for operators; null for everyone else. */
  readonly picker: HTMLElement | null;
}

export const pageScope = async (
  user: ConsoleUser,
  ownAccountName: string,
  allowEvery: boolean,
  redraw: () => void,
): Promise<PageScope> => {
  const accounts = await listAccounts(user);
  const accountId = chosenAccount(user, accounts, allowEvery);
  const accountName =
    accountId === EVERY_ACCOUNT
      ? 'every account'
      : (accounts.find((account) => account.id === accountId)?.name ?? ownAccountName);
  return {
    accountId,
    accountName,
    accounts,
    picker: isOperator(user) ? accountPicker(accounts, accountId, allowEvery, redraw) : null,
  };
};

/** `accountId=…` for the console API, or nothing for the user's own account or every account. */
export const accountQuery = (scope: PageScope): { accountId?: string } =>
  scope.accountId === EVERY_ACCOUNT ? {} : { accountId: scope.accountId };
