import { call } from '../api.js';
import { actionButton, actionForm, dataTable, field, h, listOf, replaceChildren } from '../dom.js';
import { priceText, type Pricing } from './models.js';

interface ModelRow {
  id: string;
  pricing: Pricing | null;
  /** Where the price comes from: an operator's price, the price catalogue, or none. */
  pricingSource?: 'admin' | 'catalog' | 'none';
  aliases: string[];
  ownedBy: string | null;
  /** Null for a served model nobody has set anything on. */
  createdAt: string | null;
}

const sourceText: Readonly<Record<string, string>> = {
  admin: 'set here',
  catalog: 'price catalogue',
  none: '—',
};

/**
 * Operators: every model a channel serves (and every model with settings), its effective price and
 * where that price comes from; set a price (the model field offers the served models), remove one.
 */
export const pricesPage = async (root: HTMLElement, _me: unknown, redraw: () => void): Promise<void> => {
  const [models, channels] = await Promise.all([
    call<{ data: ModelRow[] }>('GET', '/admin/v1/models'),
    call<{ data: { models: string[] }[] }>('GET', '/admin/v1/channels'),
  ]);
  const served = new Set(channels.data.flatMap((channel) => channel.models));
  for (const model of models.data)
    if (model.pricingSource !== undefined && model.createdAt === null) served.add(model.id);
  const byId = new Map(models.data.map((model) => [model.id, model]));

  const id = h('input', { id: 'model-id', required: true, list: 'served-model-ids', autocomplete: 'off' });
  const input = h('input', { id: 'model-input-price', type: 'number', min: 0, step: 'any', required: true });
  const output = h('input', { id: 'model-output-price', type: 'number', min: 0, step: 'any', required: true });
  const aliases = h('input', { id: 'model-aliases', placeholder: 'optional, comma-separated' });
  const fill = (model: ModelRow) => {
    id.value = model.id;
    input.value = model.pricing ? String(model.pricing.inputPerMTok) : '';
    output.value = model.pricing ? String(model.pricing.outputPerMTok) : '';
    aliases.value = model.aliases.join(', ');
    input.focus();
  };
  id.addEventListener('change', () => {
    const known = byId.get(id.value.trim());
    if (known) fill(known);
  });

  const save = async (): Promise<unknown> => {
    const model = id.value.trim();
    if (!served.has(model) && !confirm(`No channel serves "${model}". Set a price for it anyway?`)) {
      throw new Error('Nothing was saved.');
    }
    const existing = byId.get(model);
    return call('PUT', `/admin/v1/models/${encodeURIComponent(model)}`, {
      pricing: { inputPerMTok: Number(input.value), outputPerMTok: Number(output.value) },
      aliases: listOf(aliases.value) ?? [],
      ...(existing?.ownedBy ? { ownedBy: existing.ownedBy } : {}),
    });
  };

  replaceChildren(
    root,
    h('h1', {}, 'Models and prices'),
    h(
      'p',
      { class: 'hint' },
      'Every model a channel serves, with the price its requests are charged at, in USD per million tokens.',
    ),
    dataTable(
      'model-prices',
      ['Model', 'Price', 'Source', 'Aliases', ''],
      models.data.map((model) => [
        h('code', {}, model.id),
        priceText(model.pricing),
        sourceText[model.pricingSource ?? (model.pricing ? 'admin' : 'none')] ?? '—',
        model.aliases.join(', ') || '—',
        h(
          'span',
          { class: 'row-actions' },
          h('button', { type: 'button', class: 'secondary small', onclick: () => fill(model) }, 'Set price'),
          model.createdAt === null
            ? null
            : actionButton('Remove', () => call('DELETE', `/admin/v1/models/${encodeURIComponent(model.id)}`), {
                danger: true,
                question: `Remove the settings of ${model.id} (its price and aliases)? A served model stays served, at the catalogue's price if it has one.`,
                done: redraw,
              }),
        ),
      ]),
      'No model is served yet.',
      (index) => ({ 'data-model-id': models.data[index]!.id }),
    ),
    actionForm(
      'put-model',
      'Set a price',
      [
        field('Model', id),
        h(
          'datalist',
          { id: 'served-model-ids' },
          [...served].sort().map((value) => h('option', { value })),
        ),
        field('Input, USD per million tokens', input),
        field('Output, USD per million tokens', output),
        field('Aliases', aliases),
      ],
      'Save',
      save,
      redraw,
    ),
  );
};
