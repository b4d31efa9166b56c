import { call, query } from '../api.js';
import { dataTable, h, replaceChildren } from '../dom.js';
import type { Me } from '../main.js';
import { accountQuery, pageScope } from '../scope.js';
import { snippetsFor } from '../snippets.js';

export interface Pricing {
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
}

interface ModelList {
  readonly baseUrl: string;
  readonly data: {
    id: string;
    ownedBy: string;
    endpoints: string[];
    pricing: Pricing | null;
    pricingSource?: string;
  }[];
}

/** "$3 / $15" per million input / output tokens, or why there is no price. */
export const priceText = (pricing: Pricing | null): string =>
  pricing ? `$${pricing.inputPerMTok} in / $${pricing.outputPerMTok} out` : 'not priced';

/** The models the user may call, their prices, and how to call them from each client. */
export const modelsPage = async (root: HTMLElement, me: Me, redraw: () => void): Promise<void> => {
  const scope = await pageScope(me.user, me.account.name, false, redraw);
  const models = await call<ModelList>('GET', `/console/api/models${query(accountQuery(scope))}`);
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
    h('div', { class: 'toolbar' }, scope.picker),
    h(
      'p',
      {},
      'Base URL: ',
      h('code', { id: 'base-url' }, models.baseUrl),
      ' (OpenAI-style clients add ',
      h('code', {}, '/v1'),
      ').',
    ),
    dataTable(
      'models',
      ['Model', 'Price per million tokens', 'Owned by', 'Endpoints'],
      models.data.map((model) => [
        h('code', {}, model.id),
        priceText(model.pricing),
        model.ownedBy,
        model.endpoints.join(', '),
      ]),
      'No model is available to this account.',
    ),
    h('h2', {}, 'Use it from your client'),
    h('label', { class: 'inline' }, 'Model ', picker),
    snippetArea,
  );
  drawSnippets();
};
