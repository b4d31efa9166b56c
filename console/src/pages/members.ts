import { ApiError, call, query } from '../api.js';
import { formatTime, h, replaceChildren } from '../dom.js';
import type { Me } from '../main.js';
import { totpSetupPanel, type TotpSetup } from './sign-in.js';

interface MemberView {
  readonly id: string;
  readonly role: 'member' | 'account-admin' | 'admin';
  readonly createdAt: string;
}

const errorLine = (id: string) => h('p', { class: 'error', role: 'alert', id });

/**
 * Turning TOTP on for one's own sign-in (deployed stages, where the user pool keeps it): the password
 * first, then the key to add to an app, then its first code.
 */
const totpSection = (): HTMLElement => {
  const message = errorLine('mfa-error');
  const password = h('input', {
    id: 'mfa-password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const code = h('input', {
    id: 'mfa-first-code',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    pattern: '[0-9]{6}',
  });
  const codeRow = h('label', { hidden: true }, 'Code from the app', code);
  const setupSlot = h('div', {});
  const done = h('p', { id: 'mfa-done', hidden: true }, 'TOTP is on: every sign-in now asks for a code.');
  const submit = async (): Promise<void> => {
    message.textContent = '';
    try {
      const result = await call<{ mfaSetup: TotpSetup } | { mfa: 'enabled' }>('POST', '/console/api/mfa', {
        password: password.value,
        ...(code.value ? { mfaCode: code.value.trim() } : {}),
      });
      if ('mfaSetup' in result) {
        replaceChildren(setupSlot, totpSetupPanel(result.mfaSetup));
        codeRow.hidden = false;
        code.required = true;
        return;
      }
      replaceChildren(setupSlot);
      codeRow.hidden = true;
      done.hidden = false;
    } catch (error) {
      message.textContent = (error as Error).message;
    }
  };
  return h(
    'section',
    { id: 'sign-in-security' },
    h('h2', {}, 'Your sign-in'),
    h('p', {}, 'Turn on a second step at sign-in: a 6-digit code from an authenticator app (TOTP).'),
    h(
      'form',
      {
        id: 'mfa-form',
        onsubmit: (event: Event) => {
          event.preventDefault();
          void submit();
        },
      },
      h('label', {}, 'Password', password),
      setupSlot,
      codeRow,
      h('button', { type: 'submit' }, 'Turn on TOTP'),
    ),
    done,
    message,
  );
};

/** The account's members, for its account admins: add, change role, remove (which revokes their keys). */
const membersSection = async (me: Me, redraw: () => Promise<void>): Promise<HTMLElement> => {
  const members = await call<{ data: MemberView[] }>('GET', `/console/api/members${query({})}`);
  const message = errorLine('members-error');
  const act = async (action: () => Promise<unknown>): Promise<void> => {
    message.textContent = '';
    try {
      await action();
      await redraw();
    } catch (error) {
      message.textContent = error instanceof ApiError ? error.message : String(error);
    }
  };
  const roleSelect = (id: string, selected: MemberView['role']) =>
    h(
      'select',
      { id },
      (['member', 'account-admin'] as const).map((role) =>
        h('option', { value: role, selected: role === selected }, role),
      ),
    );
  const email = h('input', { id: 'member-email', type: 'email', required: true });
  const newRole = roleSelect('member-role', 'member');
  const rows = members.data.map((member) => {
    const editable = member.id !== me.user.id && member.role !== 'admin';
    const role = roleSelect(`role-${member.id}`, member.role);
    return h(
      'tr',
      {},
      h('td', {}, member.id),
      h('td', {}, editable ? role : member.role),
      h('td', {}, formatTime(member.createdAt)),
      h(
        'td',
        {},
        editable &&
          h(
            'button',
            {
              type: 'button',
              onclick: () =>
                void act(() =>
                  call('PUT', `/console/api/members/${encodeURIComponent(member.id)}`, { role: role.value }),
                ),
            },
            'Save role',
          ),
        editable &&
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              onclick: () => {
                if (!confirm(`Remove ${member.id}? Every API key they created is revoked.`)) return;
                void act(() => call('DELETE', `/console/api/members/${encodeURIComponent(member.id)}`));
              },
            },
            'Remove',
          ),
      ),
    );
  });
  return h(
    'section',
    { id: 'account-members' },
    h('h2', {}, `Members of ${me.account.name}`),
    h('p', {}, 'Removing a member signs them out and revokes every API key they created.'),
    h(
      'table',
      { id: 'members' },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ['E-mail', 'Role', 'Added', ''].map((label) => h('th', {}, label)),
        ),
      ),
      h('tbody', {}, rows),
    ),
    h(
      'form',
      {
        id: 'add-member',
        onsubmit: (event: Event) => {
          event.preventDefault();
          void act(() =>
            call('PUT', `/console/api/members/${encodeURIComponent(email.value.trim())}`, { role: newRole.value }),
          );
        },
      },
      h('h3', {}, 'Add a member'),
      h('label', {}, 'E-mail', email),
      h('label', {}, 'Role', newRole),
      h('button', { type: 'submit' }, 'Add'),
    ),
    message,
  );
};

/** "Account": one's own sign-in for everyone; the account's members for its account admins. */
export const accountPage = async (root: HTMLElement, me: Me): Promise<void> => {
  const config = await call<{ auth: string }>('GET', '/console/api/config');
  const redraw = () => accountPage(root, me);
  replaceChildren(
    root,
    h('h1', {}, 'Account'),
    config.auth === 'cognito' && totpSection(),
    me.user.role === 'account-admin' && (await membersSection(me, redraw)),
    config.auth !== 'cognito' &&
      me.user.role !== 'account-admin' &&
      h('p', {}, 'Nothing to set here: TOTP is offered where the console signs in through the user pool.'),
  );
};
