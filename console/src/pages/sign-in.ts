import { ApiError, call, session, type ConsoleUser } from '../api.js';
import { h, replaceChildren } from '../dom.js';
import { ssoReturn, startSso, type SsoConfig } from '../sso.js';

interface SignedIn {
  readonly token: string;
  readonly user: ConsoleUser;
}

/** TOTP to set up before the sign-in can finish: the secret as text and as an `otpauth://` URI. */
export interface TotpSetup {
  readonly secret: string;
  readonly otpauthUri: string;
  /** The user pool's setup session, sent back with the first code. */
  readonly session?: string;
}

/** The secret to type or paste into an authenticator app; no QR code is drawn (no third party is called). */
export const totpSetupPanel = (setup: TotpSetup): HTMLElement =>
  h(
    'section',
    { id: 'totp-setup', class: 'totp-setup' },
    h('h2', {}, 'Set up your authenticator'),
    h(
      'p',
      {},
      'Add this account to an authenticator app (any TOTP app): type the key below, or paste the link into an app that takes one. Then enter the 6-digit code it shows.',
    ),
    h('label', {}, 'Key', h('input', { id: 'totp-secret', readonly: true, value: setup.secret })),
    h('label', {}, 'Link', h('input', { id: 'totp-uri', readonly: true, value: setup.otpauthUri })),
  );

/**
 * "Sign in with <provider>" where the stack offers single sign-on; e-mail and password for everyone, then a TOTP code where the account has one (or must set one up:
 * operators on deployed stages); locally, operators may also sign in with an admin key. Each step
 * sends the whole form again, so nothing but the pool's own setup session is kept between steps.
 */
export const signInPage = (root: HTMLElement, signedIn: () => void): void => {
  const message = h('p', { class: 'error', role: 'alert', id: 'sign-in-error' });
  const email = h('input', { id: 'email', type: 'email', autocomplete: 'username', required: true });
  const password = h('input', { id: 'password', type: 'password', autocomplete: 'current-password', required: true });
  const newPassword = h('input', { id: 'new-password', type: 'password', autocomplete: 'new-password', minlength: 8 });
  const newPasswordRow = h('label', { hidden: true }, 'New password', newPassword);
  const mfaCode = h('input', {
    id: 'mfa-code',
    inputmode: 'numeric',
    autocomplete: 'one-time-code',
    pattern: '[0-9]{6}',
    maxlength: 6,
  });
  const mfaCodeRow = h('label', { hidden: true }, 'Authenticator code', mfaCode);
  const setupSlot = h('div', {});
  const adminKey = h('input', { id: 'admin-key', type: 'password', autocomplete: 'off', placeholder: 'sk-...' });
  let mfaSession: string | undefined;

  const showCode = (): void => {
    mfaCodeRow.hidden = false;
    mfaCode.required = true;
    mfaCode.focus();
  };

  const submit = async (body: object): Promise<void> => {
    message.textContent = '';
    try {
      const result = await call<SignedIn | { mfaSetup: TotpSetup }>('POST', '/console/api/session', body);
      if ('mfaSetup' in result) {
        mfaSession = result.mfaSetup.session;
        replaceChildren(setupSlot, totpSetupPanel(result.mfaSetup));
        showCode();
        return;
      }
      session.set(result.token);
      signedIn();
    } catch (error) {
      if (error instanceof ApiError && error.code === 'new_password_required') newPasswordRow.hidden = false;
      if (error instanceof ApiError && (error.code === 'mfa_code_required' || error.code === 'invalid_mfa_code'))
        showCode();
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

  const ssoSlot = h('div', { id: 'sso' });
  const offerSso = (sso: SsoConfig): void => {
    replaceChildren(
      ssoSlot,
      h(
        'button',
        {
          type: 'button',
          id: 'sso-sign-in',
          onclick: () => void startSso(sso).catch((error: Error) => (message.textContent = error.message)),
        },
        `Sign in with ${sso.provider}`,
      ),
    );
  };

  replaceChildren(
    root,
    h(
      'main',
      { class: 'sign-in' },
      h('h1', {}, 'model-gateway console'),
      ssoSlot,
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
              ...(mfaCode.value ? { mfaCode: mfaCode.value.trim() } : {}),
              ...(mfaCode.value && mfaSession ? { mfaSession } : {}),
            });
          },
        },
        h('label', {}, 'E-mail', email),
        h('label', {}, 'Password', password),
        newPasswordRow,
        setupSlot,
        mfaCodeRow,
        h('button', { type: 'submit' }, 'Sign in'),
      ),
      localKeyForm,
      message,
    ),
  );
  void call<{ auth: string; sso?: SsoConfig }>('GET', '/console/api/config').then((config) => {
    localKeyForm.hidden = config.auth !== 'local';
    if (config.sso) offerSso(config.sso);
  });
  // Back from the identity provider: the code and this tab's verifier open the session.
  const returned = ssoReturn();
  if (returned.kind === 'refused') message.textContent = returned.message;
  if (returned.kind === 'code') void submit({ code: returned.code, codeVerifier: returned.codeVerifier });
};
