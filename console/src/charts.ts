import { h, svg } from './dom.js';

export interface ChartPoint {
  readonly label: string;
  readonly value: number;
}

const WIDTH = 640;
const HEIGHT = 200;
const MARGIN = { top: 12, right: 8, bottom: 28, left: 56 };

/**
 * A vertical bar chart as plain SVG: no library, no inline style (the page's CSP forbids it), sized by
 * its viewBox. Each bar has a tooltip with its exact value.
 */
export const barChart = (
  title: string,
  points: readonly ChartPoint[],
  format: (value: number) => string,
): HTMLElement => {
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const max = Math.max(0, ...points.map((point) => point.value));
  const scale = max > 0 ? plotHeight / max : 0;
  const slot = plotWidth / Math.max(points.length, 1);
  const barWidth = Math.max(1, slot * 0.7);
  const labelEvery = Math.ceil(points.length / 10);

  const chart = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': title, class: 'chart' });
  // Axis: zero and the maximum.
  chart.append(
    svg('line', {
      x1: MARGIN.left,
      y1: MARGIN.top + plotHeight,
      x2: WIDTH - MARGIN.right,
      y2: MARGIN.top + plotHeight,
      class: 'axis',
    }),
    svg('text', { x: MARGIN.left - 6, y: MARGIN.top + plotHeight, class: 'tick', 'text-anchor': 'end' }, format(0)),
    svg('text', { x: MARGIN.left - 6, y: MARGIN.top + 8, class: 'tick', 'text-anchor': 'end' }, format(max)),
  );
  points.forEach((point, index) => {
    const height = point.value * scale;
    const x = MARGIN.left + index * slot + (slot - barWidth) / 2;
    const bar = svg('rect', {
      x,
      y: MARGIN.top + plotHeight - height,
      width: barWidth,
      height: Math.max(height, point.value > 0 ? 1 : 0),
      class: 'bar',
    });
    bar.append(svg('title', {}, `${point.label}: ${format(point.value)}`));
    chart.append(bar);
    if (index % labelEvery === 0) {
      chart.append(
        svg('text', { x: x + barWidth / 2, y: HEIGHT - 8, class: 'tick', 'text-anchor': 'middle' }, point.label),
      );
    }
  });
  return h('figure', { class: 'chart-box' }, h('figcaption', {}, title), chart);
};
