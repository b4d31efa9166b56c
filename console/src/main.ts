import { call, endSession, session, whenSignedOut, type ConsoleUser } from './api.js';
import { budgetBanner } from './budget-view.js';
import { h, replaceChildren } from './dom.js';
import { navigation, type Role } from './navigation.js';
import { signInPage } from './pages/sign-in.js';

export interface Me {
  readonly user: ConsoleUser;
  readonly account: {
    id: string;
    name: string;
    models: string[] | null;
    quota: { limit: number | null; used: number };
  };
}

const app = document.getElementById('app')!;

const currentPath = (): string => location.hash.replace(/^#\/?/, '').split('?')[0] || 'usage';

/**
 * Forgets the session in this tab first, then ends it on the server: a page loaded meanwhile (the
 * sign-in page, another address) must not call with a token the server is revoking.
 */
const signOut = (): void => {
  const token = session.token;
  session.clear();
  void render();
  if (token) void endSession(token);
};

/** Counts renders, so that a slow one overtaken by a newer one (a quick second click) draws nothing. */
let renders = 0;

/** Draws the page the address names, or the sign-in page without a session. */
const render = async (): Promise<void> => {
  const thisRender = (renders += 1);
  if (!session.token) {
    signInPage(app, () => void render());
    return;
  }
  let me: Me;
  try {
    me = await call<Me>('GET', '/console/api/me');
  } catch {
    session.clear();
    signInPage(app, () => void render());
    return;
  }
  if (thisRender !== renders) return;
  const visible = navigation.filter((entry) => entry.roles.includes(me.user.role as Role));
  const active = visible.find((entry) => entry.path === currentPath()) ?? visible[0]!;
  const main = h('main', { id: 'page', 'aria-live': 'polite' });
  replaceChildren(
    app,
    h(
      'header',
      { class: 'top' },
      h('span', { class: 'brand' }, 'model-gateway'),
      h(
        'nav',
        {},
        visible.map((entry) =>
          h(
            'a',
            {
              href: `#/${entry.path}`,
              class: entry === active ? 'active' : '',
              'aria-current': entry === active ? 'page' : null,
            },
            entry.label,
          ),
        ),
      ),
      h(
        'span',
        { class: 'who' },
        h(
          'span',
          { id: 'signed-in-as' },
          `${me.user.id.startsWith('admin-key:') ? 'operator (admin key)' : me.user.id} · ${me.user.role} · ${me.account.name}`,
        ),
        h('button', { type: 'button', class: 'link', onclick: signOut }, 'Sign out'),
      ),
    ),
    main,
  );
  // Over every page: the person's budgets past their first alert threshold.
  void budgetBanner().then((banner) => banner && thisRender === renders && main.before(banner));
  document.title = `${active.label} · model-gateway console`;
  try {
    await active.page(main, me, () => void render());
  } catch (error) {
    replaceChildren(main, h('p', { class: 'error', role: 'alert' }, (error as Error).message));
  }
};

whenSignedOut(() => void render());
window.addEventListener('hashchange', () => void render());
void render();
