import { readEverySpend, readSpend } from '../shared/accounting/spend.js';
import { recordAudit } from '../shared/audit/record-audit.js';
import { newId } from '../shared/auth/api-key.js';
import { newAccountRecord } from '../shared/config/resource-records.js';
import { notFound } from '../shared/errors.js';
import { json } from '../shared/http/response.js';
import type { GatewayRequest } from '../shared/middleware/gateway-handler.js';
import { unpricedWarnings } from '../shared/config/unpriced-warnings.js';
import {
  accountBudget,
  createAccount,
  getAccount,
  listAccounts,
  updateAccount,
  type Account,
} from '../shared/store/accounts.js';
import { budgetViewFrom, readBudgetView } from './budget-spending.js';
import { byCreation, pageOf, pageQuery, pageView } from './list-page.js';
import { parseWith } from './parse-with.js';
import { accountCreate, accountPatch, idPath } from './schemas.js';
import { accountView } from './views.js';

type Request = GatewayRequest<unknown>;

const accountNotFound = (id: string) => notFound(`No account with id '${id}'.`);

/**
 * The account as shown: its `quota.used` is its total spending summed over the spend table's shards,
 * its `budget` that of the budget's current period.
 */
const withSpending = (account: Account, used: number, budget: Awaited<ReturnType<typeof readBudgetView>>) =>
  accountView({ ...account, quota: { ...account.quota, used } }, budget);

const owner = (account: Account) => ({ level: 'account', ownerId: account.id, accountId: account.id }) as const;

const shown = async (account: Account) => {
  const [spend, budget] = await Promise.all([
    readSpend(account.id),
    readBudgetView(accountBudget(account), owner(account)),
  ]);
  return withSpending(account, spend.used, budget);
};

/** The account as shown, with `warnings` when its budget can reach a model without a price. */
const shownWithWarnings = async (account: Account) => {
  const view = await shown(account);
  if (!view.budget) return view;
  const warnings = await unpricedWarnings(`Account '${account.id}'`, { accountModels: account.models });
  return warnings.length > 0 ? { ...view, warnings } : view;
};

/** The account, or 404: for routes that act on an account named in the request. */
export const requireAccount = async (id: string): Promise<Account> => {
  const account = await getAccount(id);
  if (!account) throw accountNotFound(id);
  return account;
};

/** POST /admin/v1/accounts */
export const create = async (request: Request) => {
  const input = parseWith(accountCreate, request.body ?? {});
  const account = await createAccount(newAccountRecord(newId('acct'), input));
  await recordAudit(request, { action: 'account.create', target: { kind: 'account', id: account.id } });
  return json(201, await shownWithWarnings(account));
};

/**
 * GET /admin/v1/accounts?limit=&cursor=: oldest first, whole or a page at a time (list-page.ts); two
 * reads of the store (accounts, spending), however many accounts there are.
 */
export const list = async ({ query }: Request) => {
  const asked = parseWith(pageQuery, query ?? {});
  const [accounts, spending] = await Promise.all([listAccounts(), readEverySpend()]);
  const page = pageOf(accounts, byCreation, 'accounts', asked);
  return json(
    200,
    pageView(page, (account) =>
      withSpending(
        account,
        spending.get(account.id)?.used ?? 0,
        budgetViewFrom(spending, accountBudget(account), owner(account)),
      ),
    ),
  );
};

/** GET /admin/v1/accounts/{id} */
export const get = async ({ pathParameters }: Request) => {
  const { id } = parseWith(idPath, pathParameters);
  return json(200, await shown(await requireAccount(id)));
};

/** PATCH /admin/v1/accounts/{id}: only the fields sent change; the quota's `used` never does. */
export const update = async (request: Request) => {
  const { id } = parseWith(idPath, request.pathParameters);
  const { quota, ...changes } = parseWith(accountPatch, request.body ?? {});
  const account = await updateAccount(id, { ...changes, quotaLimit: quota?.limit });
  if (!account) throw accountNotFound(id);
  await recordAudit(request, { action: 'account.update', target: { kind: 'account', id } });
  return json(200, await shownWithWarnings(account));
};
