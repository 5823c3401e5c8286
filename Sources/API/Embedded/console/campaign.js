// A campaign: its counts by status and by reason, its rate over time, its failures and rejections with their
// reasons, and a link to its deliveries (GET /v1/campaigns/{id}, /v1/stats/series?campaign= for the chart and the
// reasons, from per-minute counters; /v1/deliveries?campaign=).
import { get } from './api.js';
import { campaignActions, progress } from './actions.js';
import { badge, decimal, fill, h, keepFocus, link, number, table, time, title } from './dom.js';
import { seriesCharts } from './chart.js';

const statuses = ['pending', 'accepted', 'unregistered', 'rejected', 'failed', 'cancelled'];

/** "BadDeviceToken: 3, Unregistered: 1" from counts by reason; a dash for none. */
const because = (counts = {}) => Object.entries(counts).filter(([reason]) => reason !== 'none')
  .map(([reason, count]) => `${reason}: ${number(count)}`).join(', ') || '—';

export function mount(view, context) {
  const id = context.argument;
  const message = h('p', { class: 'message', role: 'status' });
  const head = h('div');
  const summary = h('section', { 'aria-labelledby': 'counts-heading' });
  const charts = h('section', { 'aria-labelledby': 'rate-heading' });
  const problems = h('section', { 'aria-labelledby': 'problems-heading' });
  fill(view, title(`Campaign ${id}`, link('Its deliveries', 'deliveries', { campaign: id })), message, head, summary,
    charts, problems);
  let slowReadAt = 0;
  let readFinished = false;
  let reasons = {};
  return {
    every: 1000,
    async refresh() {
      const report = await get(`/v1/campaigns/${encodeURIComponent(id)}`, {}, context.signal);
      const running = report.status !== 'completed' && report.status !== 'cancelled';
      keepFocus(head, () => fill(head,
        h('p', {}, badge(report.paused ? 'paused' : report.status), ' ', report.topic, ' · ', report.kind,
          ' · created ', time(report.createdAt)),
        progress(report),
        h('p', {}, running && !report.waiting ? `${decimal(report.ratePerSecond)} deliveries/s` : '',
          report.eta ? h('span', {}, ' · ETA ', time(report.eta)) : '',
          report.waiting ? h('span', { class: 'waiting' }, `Waiting: ${report.waiting.reason.replaceAll('_', ' ')} since `, time(report.waiting.since)) : ''),
        campaignActions(report, context, (text) => fill(message, text))));
      const counts = () => fill(summary, h('h2', { id: 'counts-heading' }, 'Deliveries'),
        table('Deliveries by status', [
          ['Status', (s) => badge(s)],
          ['Deliveries', (s) => number(report.counts[s])],
          ['Reasons', (s) => because(reasons[s])],
        ], statuses),
        reasons.retry ? h('p', {}, 'Answers to try again: ', because(reasons.retry)) : null);
      counts();
      // Reasons, the chart and the failures read more rows: every 10 s while it runs, once more when it has
      // finished.
      if (readFinished || (running && slowReadAt && Date.now() - slowReadAt < 10_000)) return;
      slowReadAt = Date.now();
      readFinished = !running;
      // From its start to now, in the shortest step that keeps it under the API's 1,500 steps.
      const since = report.startedAt ?? report.createdAt;
      const minutes = (Date.now() - Date.parse(since)) / 60_000 + 2;
      const step = [1, 5, 15, 60, 360, 1440].find((size) => minutes / size < 1400) ?? 10_080;
      const [series, failed, rejected] = await Promise.all([
        get('/v1/stats/series', { since, step: `${step}m`, campaign: id }, context.signal),
        get('/v1/deliveries', { campaign: id, status: 'failed', limit: 20 }, context.signal),
        get('/v1/deliveries', { campaign: id, status: 'rejected', limit: 20 }, context.signal),
      ]);
      reasons = series.reasons;
      counts();
      fill(charts, h('h2', { id: 'rate-heading' }, 'Rate'), seriesCharts(series, ' of this campaign'));
      const rows = [...failed.deliveries, ...rejected.deliveries];
      fill(problems, h('h2', { id: 'problems-heading' }, 'Failures and rejections'),
        table('Failures and rejections', [
          ['Token', (d) => h('span', { class: 'token' }, d.token ?? `channel ${d.channel}`)],
          ['Status', (d) => badge(d.status)],
          ['Reason', (d) => d.reason ?? '—'],
          ['HTTP', (d) => d.httpStatus ?? '—'],
          ['Attempts', (d) => number(d.attempts)],
          ['At', (d) => time(d.updatedAt)],
        ], rows, 'No delivery failed or was rejected.'),
        failed.next || rejected.next ? h('p', {}, link('All of them', 'deliveries', { campaign: id, status: 'failed' })) : null);
    },
  };
}
