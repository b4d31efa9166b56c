import { ApiError, call, session, type ConsoleUser } from '../api.js';
import { h, replaceChildren } from '../dom.js';

interface SignedIn {
  readonly token: string;
  readonly user: ConsoleUser;
}

/** E-mail and password for everyone; locally, operators may also sign in with an admin key. */
export const signInPage = (root: HTMLElement, signedIn: () => void): void => {
  const message = h('p', { class: 'error', role: 'alert', id: 'sign-in-error' });
  const email = h('input', { id: 'email', type: 'email', autocomplete: 'username', required: true });
  const password = h('input', { id: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const newPassword = h('input', { id: 'new-password', type: 'password', autocomplete: 'new-password', minlength: 8 });
  const newPasswordRow = h('label', { hidden: true }, 'New password', newPassword);
  const adminKey = h('input', { id: 'admin-key', type: 'password', autocomplete: 'off', placeholder: 'sk-...' });

  const submit = async (body: object): Promise<void> => {
    message.textContent = '';
    try {
      const result = await call<SignedIn>('POST', '/console/api/session', body);
      session.set(result.token);
      signedIn();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'new_password_required') newPasswordRow.hidden = false;
      message.textContent = (error as Error).message;
    }
  };

  const localKeyForm = h(
    'form',
    {
      id: 'admin-key-form',
      hidden: true,
      onsubmit: (event: Event) => {
        event.preventDefault();
        void submit({ key: adminKey.value.trim() });
      },
    },
    h('h2', {}, 'Operators: sign in with an admin key'),
    h('label', {}, 'Admin key', adminKey),
    h('button', { type: 'submit' }, 'Sign in with key'),
  );

  replaceChildren(
    root,
    h(
      'main',
      { class: 'sign-in' },
      h('h1', {}, 'model-gateway console'),
      h(
        'form',
        {
          id: 'sign-in-form',
          onsubmit: (event: Event) => {
            event.preventDefault();
            void submit({
              email: email.value.trim(),
              password: password.value,
              ...(newPassword.value ? { newPassword: newPassword.value } : {}),
            });
          },
        },
        h('label', {}, 'E-mail', email),
        h('label', {}, 'Password', password),
        newPasswordRow,
        h('button', { type: 'submit' }, 'Sign in'),
      ),
      localKeyForm,
      message,
    ),
  );
  void call<{ auth: string }>('GET', '/console/api/config').then((config) => {
    localKeyForm.hidden = config.auth !== 'local';
  });
};
