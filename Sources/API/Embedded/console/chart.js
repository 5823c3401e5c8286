// Bar charts drawn as SVG by hand: one bar per step, stacked by key, with the scale and times as text beside it and
// the numbers in a table for screen readers and for copying.
import { h, number } from './dom.js';

const svgNS = 'http://www.w3.org/2000/svg';

function svg(tag, attributes) {
  const element = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  return element;
}

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

/**
 * A stacked bar chart. `points`: [{at: ISO time, values: {key: count}}]; `keys`: the stacking order, each
 * [key, label]; `label`: what is counted ("requests per minute").
 */
export function barChart({ label, points, keys }) {
  const totals = points.map((point) => keys.reduce((sum, [key]) => sum + (point.values[key] ?? 0), 0));
  const max = Math.max(1, ...totals);
  const width = 600;
  const height = 150;
  const slot = width / Math.max(1, points.length);
  const bars = svg('svg', {
    viewBox: `0 0 ${width} ${height}`, preserveAspectRatio: 'none', class: 'chart-bars', 'aria-hidden': 'true',
    focusable: 'false',
  });
  points.forEach((point, index) => {
    let y = height;
    for (const [key] of keys) {
      const value = point.values[key] ?? 0;
      if (value === 0) continue;
      const barHeight = (value / max) * height;
      y -= barHeight;
      bars.append(svg('rect', {
        x: index * slot + slot * 0.1, y, width: Math.max(1, slot * 0.8), height: barHeight, class: `series-${key}`,
      }));
    }
  });
  const latest = totals.length ? totals[totals.length - 1] : 0;
  const peak = Math.max(0, ...totals);
  const summary = `${label}: peak ${number(peak)}, latest ${number(latest)}, ${number(totals.reduce((a, b) => a + b, 0))} in all`;
  const first = points[0]?.at;
  const last = points[points.length - 1]?.at;
  return h('figure', { class: 'chart' },
    h('figcaption', {}, label),
    h('div', { class: 'chart-area', role: 'img', 'aria-label': summary },
      h('span', { class: 'chart-max' }, number(max)), bars),
    h('div', { class: 'chart-axis', 'aria-hidden': 'true' },
      h('span', {}, first ? clock.format(new Date(first)) : ''), h('span', {}, last ? clock.format(new Date(last)) : '')),
    keys.length > 1
      ? h('ul', { class: 'legend' }, keys.map(([key, name]) => h('li', {}, h('span', { class: `swatch series-${key}` }), name)))
      : null,
    h('details', {},
      h('summary', {}, 'Numbers'),
      h('div', { class: 'scroll' }, h('table', {},
        h('caption', { class: 'visually-hidden' }, label),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Time'), keys.map(([, name]) => h('th', { scope: 'col' }, name)))),
        h('tbody', {}, points.filter((_, index) => totals[index] > 0).map((point) => h('tr', {},
          h('td', {}, clock.format(new Date(point.at))),
          keys.map(([key]) => h('td', {}, number(point.values[key] ?? 0))))))))));
}

/** The series of `GET /v1/stats/series` as two charts: requests, and outcomes by status. */
export function seriesCharts(series, what) {
  const minutes = series.step / 60;
  const per = minutes === 1 ? 'per minute' : minutes === 60 ? 'per hour' : minutes % 60 === 0
    ? `per ${minutes / 60} hours` : `per ${minutes} minutes`;
  return h('div', { class: 'charts' },
    barChart({
      label: `APNs requests per second${what}, averaged over ${minutes === 1 ? 'each minute' : `steps of ${per.replace('per ', '')}`}`,
      points: series.points.map((point) => ({
        at: point.at, values: { requests: Math.round((point.requests / series.step) * 10) / 10 },
      })),
      keys: [['requests', 'Requests per second']],
    }),
    barChart({
      label: `Outcomes ${per}${what}`,
      points: series.points.map((point) => ({ at: point.at, values: point.outcomes })),
      keys: [['accepted', 'Accepted'], ['retry', 'To retry'], ['unregistered', 'Unregistered'],
        ['rejected', 'Rejected'], ['failed', 'Failed'], ['cancelled', 'Cancelled']],
    }));
}
