import { call } from '../api.js';
import { h, replaceChildren } from '../dom.js';
import { snippetsFor } from '../snippets.js';

interface ModelList {
  readonly baseUrl: string;
  readonly data: { id: string; ownedBy: string; endpoints: string[] }[];
}

/** The models the user may call, and how to call them from each client. */
export const modelsPage = async (root: HTMLElement): Promise<void> => {
  const models = await call<ModelList>('GET', '/console/api/models');
  const snippetArea = h('div', { id: 'snippets' });
  const picker = h(
    'select',
    { id: 'snippet-model' },
    models.data.map((model) => h('option', { value: model.id }, model.id)),
  );

  const drawSnippets = (): void => {
    const model = picker.value || 'MODEL';
    replaceChildren(
      snippetArea,
      snippetsFor(models.baseUrl, model).map((snippet) =>
        h(
          'section',
          { class: 'snippet', 'data-client': snippet.id },
          h('h3', {}, snippet.label),
          h(
            'button',
            { type: 'button', class: 'copy', onclick: () => void navigator.clipboard.writeText(snippet.code) },
            'Copy',
          ),
          h('pre', {}, h('code', {}, snippet.code)),
        ),
      ),
    );
  };
  picker.addEventListener('change', drawSnippets);

  replaceChildren(
    root,
    h('h1', {}, 'Models'),
    h(
      'p',
      {},
      'Base URL: ',
      h('code', { id: 'base-url' }, models.baseUrl),
      ' (OpenAI-style clients add ',
      h('code', {}, '/v1'),
      ').',
    ),
    h(
      'table',
      { id: 'models' },
      h('thead', {}, h('tr', {}, h('th', {}, 'Model'), h('th', {}, 'Owned by'), h('th', {}, 'Endpoints'))),
      h(
        'tbody',
        {},
        models.data.length === 0
          ? h('tr', {}, h('td', { colspan: 3, class: 'hint' }, 'No model is available to this account.'))
          : null,
        models.data.map((model) =>
          h(
            'tr',
            {},
            h('td', {}, h('code', {}, model.id)),
            h('td', {}, model.ownedBy),
            h('td', {}, model.endpoints.join(', ')),
          ),
        ),
      ),
    ),
    h('h2', {}, 'Use it from your client'),
    h('label', { class: 'inline' }, 'Model ', picker),
    snippetArea,
  );
  drawSnippets();
};
