import { call, query } from '../api.js';
import { actionButton, actionForm, dataTable, field, formatTime, h, replaceChildren } from '../dom.js';
import type { Me } from '../main.js';
import { accountQuery, pageScope } from '../scope.js';

interface Member {
  id: string;
  accountId: string;
  role: 'member' | 'account-admin' | 'admin';
  hasLocalPassword: boolean;
  createdAt: string;
}

/**
 * The people of an account (account admins: their own; operators: the account picked): add, change
 * the role or the local password, remove (their keys are revoked with them). The server decides who
 * may do what (`functions/console/members.ts`).
 */
export const membersPage = async (root: HTMLElement, me: Me, redraw: () => void): Promise<void> => {
  const scope = await pageScope(me.user, me.account.name, false, redraw);
  const [members, config] = await Promise.all([
    call<{ data: Member[] }>('GET', `/console/api/members${query(accountQuery(scope))}`),
    call<{ auth: string }>('GET', '/console/api/config'),
  ]);
  const local = config.auth === 'local';
  const roles =
    me.user.role === 'admin' ? (['member', 'account-admin', 'admin'] as const) : (['member', 'account-admin'] as const);
  const email = h('input', { id: 'member-email', type: 'email', required: true, autocomplete: 'off' });
  const role = h(
    'select',
    { id: 'member-role' },
    roles.map((value) => h('option', { value }, value)),
  );
  const password = h('input', { id: 'member-password', type: 'password', minlength: 8, autocomplete: 'new-password' });
  const fill = (member: Member) => {
    email.value = member.id;
    role.value = member.role;
    password.focus();
  };
  const save = () => {
    const address = email.value.trim();
    const existing = members.data.find((member) => member.id === address.toLowerCase());
    if (local && !password.value && !existing?.hasLocalPassword) {
      if (!confirm(`${address} has no password yet and cannot sign in until one is set here. Save without one?`))
        return Promise.reject(new Error('Nothing was saved.'));
    }
    return call('PUT', `/console/api/members/${encodeURIComponent(address)}`, {
      role: role.value,
      ...accountQuery(scope),
      ...(local && password.value ? { password: password.value } : {}),
    });
  };
  replaceChildren(
    root,
    h('h1', {}, 'Members'),
    h('div', { class: 'toolbar' }, scope.picker),
    h(
      'p',
      { class: 'hint' },
      local
        ? 'Locally, members sign in with the password set here.'
        : 'Members sign in through the user pool with this e-mail address; create them there too.',
    ),
    dataTable(
      'members',
      ['E-mail', 'Role', ...(local ? ['Password'] : []), 'Added', ''],
      members.data.map((member) => [
        member.id,
        member.role,
        ...(local ? [member.hasLocalPassword ? 'set' : h('span', { class: 'warning' }, 'none: cannot sign in')] : []),
        formatTime(member.createdAt),
        member.id === me.user.id
          ? h('span', { class: 'hint' }, 'you')
          : h(
              'span',
              { class: 'row-actions' },
              h('button', { type: 'button', class: 'secondary small', onclick: () => fill(member) }, 'Change'),
              actionButton('Remove', () => call('DELETE', `/console/api/members/${encodeURIComponent(member.id)}`), {
                danger: true,
                question: `Remove ${member.id} from ${scope.accountName}? Every key they created is revoked; this cannot be undone.`,
                done: redraw,
              }),
            ),
      ]),
      'No members yet.',
      (index) => ({ 'data-member-id': members.data[index]!.id }),
    ),
    actionForm(
      'put-member',
      'Add a member or change one',
      [
        field('E-mail', email),
        field('Role', role),
        local ? field('Password (local sign-in, 8+ characters)', password) : null,
      ],
      'Save',
      save,
      redraw,
    ),
  );
};
