/** A tiny element builder: the console has no framework, and never writes HTML strings. */
type Child = Node | string | number | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] => {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
};

export const append = (parent: Node, children: (Child | Child[])[]): void => {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
};

/** An SVG element (charts). */
export const svg = (
  tag: string,
  attributes: Record<string, string | number> = {},
  ...children: (SVGElement | string)[]
): SVGElement => {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child);
  return element;
};

export const replaceChildren = (parent: Element, ...children: (Child | Child[])[]): void => {
  parent.replaceChildren();
  append(parent, children);
};

export { formatCost, formatNumber, formatTime } from './format.js';
import { formatTime } from './format.js';

/** A table in a box that scrolls sideways on a narrow screen, so the page itself never does. */
export const tableBox = (table: HTMLTableElement): HTMLElement => h('div', { class: 'table-box' }, table);

/**
 * A data table: headings, rows of cells, a line saying so when there are none. Each cell carries its
 * heading (`data-label`), which the narrow layout shows beside the value.
 */
export const dataTable = (
  id: string,
  headings: readonly string[],
  rows: readonly (readonly (Child | Child[])[])[],
  empty = 'None yet.',
  rowAttributes: (index: number) => Record<string, string> = () => ({}),
): HTMLElement =>
  tableBox(
    h(
      'table',
      { id },
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headings.map((heading) => h('th', { scope: 'col' }, heading)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.length === 0 ? h('tr', {}, h('td', { colspan: headings.length, class: 'hint' }, empty)) : null,
        rows.map((row, index) =>
          h(
            'tr',
            rowAttributes(index),
            row.map((cell, column) => h('td', { 'data-label': headings[column] ?? '' }, cell)),
          ),
        ),
      ),
    ),
  );

/** "3 min ago", "2 days ago": how long ago an ISO time was, with the exact time as its tooltip. */
export const timeAgo = (iso: string | null, never = 'never'): HTMLElement => {
  if (!iso) return h('span', { class: 'hint' }, never);
  const seconds = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  const [value, unit] =
    seconds < 60
      ? [0, 'just now']
      : seconds < 3600
        ? [Math.floor(seconds / 60), 'min']
        : seconds < 86_400
          ? [Math.floor(seconds / 3600), 'h']
          : [Math.floor(seconds / 86_400), 'd'];
  return h('time', { datetime: iso, title: formatTime(iso) }, value === 0 ? unit : `${value} ${unit} ago`);
};

/** A comma-separated list typed by a person: trimmed, empties dropped; undefined when nothing is left. */
export const listOf = (text: string): string[] | undefined => {
  const items = text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
  return items.length > 0 ? items : undefined;
};

/** A labelled field. */
export const field = (label: string, input: HTMLElement, hint?: string): HTMLElement =>
  h('label', {}, label, input, hint ? h('small', { class: 'hint' }, hint) : null);

/**
 * A form that runs `action` on submit, then `done`; the server's message shows under it on failure.
 * The button says what the form does.
 */
export const actionForm = (
  id: string,
  title: string | null,
  fields: (HTMLElement | null)[],
  submitLabel: string,
  action: () => Promise<unknown>,
  done: () => unknown,
  extraButtons: HTMLElement[] = [],
): HTMLFormElement => {
  const error = h('p', { class: 'error', role: 'alert' });
  return h(
    'form',
    {
      id,
      class: 'card',
      onsubmit: (event: Event) => {
        event.preventDefault();
        error.textContent = '';
        action().then(done, (failure: Error) => (error.textContent = failure.message));
      },
    },
    title ? h('h2', {}, title) : null,
    fields,
    h('div', { class: 'buttons' }, h('button', { type: 'submit' }, submitLabel), extraButtons),
    error,
  );
};

/** A small button that runs `action` after the person confirms `question` (when one is given). */
export const actionButton = (
  label: string,
  action: () => Promise<unknown>,
  options: { question?: string; danger?: boolean; id?: string; done?: () => unknown } = {},
): HTMLButtonElement =>
  h(
    'button',
    {
      type: 'button',
      id: options.id,
      class: options.danger ? 'danger small' : 'secondary small',
      onclick: (event: Event) => {
        if (options.question && !confirm(options.question)) return;
        const button = event.currentTarget as HTMLButtonElement;
        button.disabled = true;
        action().then(
          () => options.done?.(),
          (failure: Error) => {
            button.disabled = false;
            alert(failure.message);
          },
        );
      },
    },
    label,
  );
