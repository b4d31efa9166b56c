import { h, svg } from './dom.js';

export interface ChartPoint {
  /** The bar's name on the axis (a day, a model). */
  readonly label: string;
  readonly value: number;
}

const HEIGHT = 220;
const MARGIN = { top: 14, right: 12, bottom: 34, left: 64 };
/** Pixels a tick label needs along the x axis before the next may be drawn. */
const LABEL_SPACE = 56;

/** 1, 2 or 5 times a power of ten: round steps a person reads at a glance. */
const niceStep = (max: number, ticks: number): number => {
  const raw = max / ticks;
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  return (fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 5 ? 5 : 10) * power;
};

/**
 * A bar chart as SVG drawn at the width of its box, so that its text is real pixels (13 px) at any
 * screen size: round y ticks with grid lines, x labels thinned to what fits, every bar's exact value
 * on hover or focus (and in its tooltip), and no chart at all when there is nothing to draw. Plain
 * SVG and a stylesheet: nothing the page's CSP forbids, nothing to download.
 */
export const barChart = (
  title: string,
  points: readonly ChartPoint[],
  format: (value: number) => string,
  empty = 'Nothing in this range.',
): HTMLElement => {
  const readout = h('output', { class: 'readout', 'aria-live': 'polite' });
  const box = h('figure', { class: 'chart-box' }, h('figcaption', {}, title, readout));
  const total = points.reduce((sum, point) => sum + point.value, 0);
  if (points.length === 0 || total === 0) {
    box.append(h('p', { class: 'chart-empty' }, empty));
    return box;
  }
  const area = h('div', { class: 'chart-area' });
  box.append(area);
  const draw = (): void => {
    const width = Math.max(280, Math.floor(area.clientWidth || 600));
    area.replaceChildren(drawBars(width, points, format, (text) => (readout.textContent = text), title));
  };
  // Drawn once in the page, then at every change of its width.
  requestAnimationFrame(draw);
  new ResizeObserver(() => draw()).observe(area);
  return box;
};

const drawBars = (
  width: number,
  points: readonly ChartPoint[],
  format: (value: number) => string,
  show: (text: string) => void,
  title: string,
): SVGElement => {
  const plotWidth = width - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const max = Math.max(...points.map((point) => point.value));
  const step = niceStep(max, 4);
  const top = Math.ceil(max / step) * step;
  const scale = plotHeight / top;
  const slot = plotWidth / points.length;
  const barWidth = Math.max(2, Math.min(48, slot * 0.72));
  const labelEvery = Math.max(1, Math.ceil(LABEL_SPACE / slot));

  const chart = svg('svg', {
    width,
    height: HEIGHT,
    viewBox: `0 0 ${width} ${HEIGHT}`,
    role: 'img',
    'aria-label': `${title}: ${points.map((point) => `${point.label} ${format(point.value)}`).join(', ')}`,
    class: 'chart',
  });
  for (let value = 0; value <= top + step / 2; value += step) {
    const y = MARGIN.top + plotHeight - value * scale;
    chart.append(
      svg('line', { x1: MARGIN.left, y1: y, x2: width - MARGIN.right, y2: y, class: value === 0 ? 'axis' : 'grid' }),
      svg('text', { x: MARGIN.left - 8, y: y + 4, class: 'tick', 'text-anchor': 'end' }, format(value)),
    );
  }
  points.forEach((point, index) => {
    const height = point.value * scale;
    const x = MARGIN.left + index * slot + (slot - barWidth) / 2;
    const text = `${point.label}: ${format(point.value)}`;
    // The hit area is the whole slot, so that a thin bar (or a zero) still answers the pointer.
    const hit = svg('rect', {
      x: MARGIN.left + index * slot,
      y: MARGIN.top,
      width: slot,
      height: plotHeight,
      class: 'hit',
      tabindex: 0,
      'data-value': text,
    });
    hit.append(svg('title', {}, text));
    const bar = svg('rect', {
      x,
      y: MARGIN.top + plotHeight - height,
      width: barWidth,
      height: Math.max(height, point.value > 0 ? 1 : 0),
      class: 'bar',
    });
    for (const name of ['mouseenter', 'focus']) hit.addEventListener(name, () => show(text));
    hit.addEventListener('mouseleave', () => show(''));
    chart.append(bar, hit);
    if (index % labelEvery === 0) {
      chart.append(
        svg(
          'text',
          { x: x + barWidth / 2, y: HEIGHT - MARGIN.bottom + 20, class: 'tick', 'text-anchor': 'middle' },
          point.label.length > 12 ? `${point.label.slice(0, 11)}…` : point.label,
        ),
      );
    }
  });
  return chart;
};
