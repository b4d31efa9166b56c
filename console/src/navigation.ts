import { budgetsPage } from './budget-view.js';
import type { Me } from './main.js';
import { accountsPage } from './pages/accounts.js';
import { auditPage } from './pages/audit.js';
import { channelsPage } from './pages/channels.js';
import { keysPage } from './pages/keys.js';
import { accountPage } from './pages/members.js';
import { membersPage } from './pages/account-members.js';
import { modelsPage } from './pages/models.js';
import { pricesPage } from './pages/prices.js';
import { requestsPage } from './pages/requests.js';
import { usagePage } from './pages/usage.js';

export type Role = 'member' | 'account-admin' | 'admin';

/** A page: it draws into `root`; `redraw` draws the current page again (after the account picker changed). */
export type Page = (root: HTMLElement, me: Me, redraw: () => void) => Promise<void>;

export interface NavEntry {
  readonly path: string;
  readonly label: string;
  readonly page: Page;
  /** Who sees the page in the navigation; the server checks every call anyway. */
  readonly roles: readonly Role[];
}

const everyone: readonly Role[] = ['member', 'account-admin', 'admin'];
const operators: readonly Role[] = ['admin'];

/** The console's pages in navigation order: a new page is one entry here. */
export const navigation: readonly NavEntry[] = [
  { path: 'usage', label: 'Usage', page: usagePage, roles: everyone },
  { path: 'requests', label: 'Requests', page: requestsPage, roles: everyone },
  { path: 'keys', label: 'API keys', page: keysPage, roles: everyone },
  { path: 'models', label: 'Models', page: modelsPage, roles: everyone },
  { path: 'budgets', label: 'Budgets', page: budgetsPage, roles: everyone },
  // One's own sign-in (TOTP), and for account admins their account's members.
  { path: 'account', label: 'Account', page: accountPage, roles: everyone },
  // Operators: the members of any account, with the account picker.
  { path: 'members', label: 'Members', page: membersPage, roles: operators },
  { path: 'accounts', label: 'Accounts', page: accountsPage, roles: operators },
  { path: 'channels', label: 'Channels', page: channelsPage, roles: operators },
  { path: 'prices', label: 'Models & prices', page: pricesPage, roles: operators },
  { path: 'audit', label: 'Audit', page: auditPage, roles: operators },
];
