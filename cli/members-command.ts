import { CliError, listAll, type AdminClient } from './admin-client.js';
import { budgetColumn, budgetOption } from './budget-options.js';
import { formatRecord, formatTable, type Column } from './table.js';

/**
 * `gatewayctl members list|put|delete`: who may sign in to the console, in which account and role,
 * and the budget that covers the keys they create (`/admin/v1/members`). Passwords are not taken
 * here: deployed, the user pool keeps them; locally, the admin API's `password` sets one.
 */

interface MembersContext {
  readonly client: AdminClient;
  readonly options: Record<string, string | boolean | undefined>;
  readonly args: readonly string[];
  readonly json: boolean;
  print(text: string): void;
}

const memberColumns: Column<any>[] = [
  { header: 'EMAIL', value: (row) => row.id },
  { header: 'ACCOUNT', value: (row) => row.accountId },
  { header: 'ROLE', value: (row) => row.role },
  budgetColumn,
];

const text = (options: MembersContext['options'], name: string) =>
  typeof options[name] === 'string' ? options[name] : undefined;

const emailArgument = (context: MembersContext) => {
  const email = context.args[0];
  if (!email) throw new CliError('Missing the member e-mail address.', 2);
  return encodeURIComponent(email);
};

const show = (context: MembersContext, payload: any) => {
  if (context.json) return context.print(JSON.stringify(payload, null, 2));
  if (Array.isArray(payload?.data)) return context.print(formatTable(payload.data as unknown[], memberColumns));
  return context.print(formatRecord(payload));
};

export const membersCommands = {
  list: async (context: MembersContext) => {
    const account = text(context.options, 'account');
    show(
      context,
      await listAll(context.client, `/admin/v1/members${account ? `?accountId=${encodeURIComponent(account)}` : ''}`),
    );
  },
  put: async (context: MembersContext) => {
    const email = emailArgument(context);
    const budget = budgetOption(context.options);
    let accountId = text(context.options, 'account');
    let role = text(context.options, 'role');
    // The API takes the whole membership: what is not given is kept from the member as they are.
    if (!accountId || !role) {
      const { data } = await listAll(context.client, '/admin/v1/members');
      const existing = (data as { id: string; accountId: string; role: string }[]).find(
        (member) => member.id === decodeURIComponent(email).toLowerCase(),
      );
      accountId ??= existing?.accountId;
      role ??= existing?.role ?? 'member';
    }
    if (!accountId) throw new CliError('Missing --account (the member is new).', 2);
    const body = { accountId, role, ...(budget === undefined ? {} : { budget }) };
    show(context, await context.client.request('PUT', `/admin/v1/members/${email}`, body));
  },
  delete: async (context: MembersContext) => {
    const deleted = await context.client.request('DELETE', `/admin/v1/members/${emailArgument(context)}`);
    if (context.json) return context.print(JSON.stringify(deleted, null, 2));
    context.print(`Removed member ${deleted.id}; ${deleted.keysRevoked} of their keys revoked.`);
  },
};
