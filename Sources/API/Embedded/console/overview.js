// Overview: APNs per environment, the queue, the last hour's requests and outcomes, the campaigns running or
// paused, and the workers with their heartbeats (GET /v1/status, /v1/stats/series, /v1/campaigns).
import { get } from './api.js';
import { badge, decimal, duration, fill, h, keepFocus, link, number, table, time, title } from './dom.js';
import { seriesCharts } from './chart.js';

export function mount(view, context) {
  const parts = {
    apns: h('section', { 'aria-labelledby': 'apns-heading' }),
    queue: h('section', { 'aria-labelledby': 'queue-heading' }),
    charts: h('section', { 'aria-labelledby': 'hour-heading' }),
    campaigns: h('section', { 'aria-labelledby': 'running-heading' }),
    workers: h('section', { 'aria-labelledby': 'workers-heading' }),
  };
  fill(view, title('Overview'), h('div', { class: 'grid' }, parts.apns, parts.queue), parts.charts, parts.campaigns,
    parts.workers);
  let seriesReadAt = 0;
  return {
    every: 2000,
    async refresh() {
      const status = await get('/v1/status', {}, context.signal);
      context.showBanner(status);
      renderAPNs(parts.apns, status);
      renderQueue(parts.queue, status);
      renderWorkers(parts.workers, status);
      const [running, scheduled] = await Promise.all([
        get('/v1/campaigns', { status: 'running', limit: 20 }, context.signal),
        get('/v1/campaigns', { status: 'scheduled', limit: 20 }, context.signal),
      ]);
      renderCampaigns(parts.campaigns, [...running.campaigns, ...scheduled.campaigns]);
      // The minute counters move once a minute at most: read every 10 s.
      if (Date.now() - seriesReadAt >= 10_000) {
        const series = await get('/v1/stats/series', { since: '1h', step: '60s' }, context.signal);
        seriesReadAt = Date.now();
        fill(parts.charts, h('h2', { id: 'hour-heading' }, 'The last hour'), seriesCharts(series, ''));
      }
    },
  };
}

function renderAPNs(section, status) {
  const environments = Object.entries(status.apns ?? {});
  fill(section, h('h2', { id: 'apns-heading' }, 'APNs'),
    environments.length === 0
      ? h('p', { class: 'empty' }, 'No live worker has used APNs yet.')
      : h('ul', { class: 'cards' }, environments.map(([environment, apns]) => h('li', { class: 'card' },
        h('h3', {}, environment),
        h('p', {}, apns.reachable ? badge('reachable') : badge('unreachable'),
          apns.since ? h('span', { class: 'muted' }, ' since ', time(apns.since)) : null),
        h('p', {}, 'Connections: ', number(apns.connections.open), ' open, ', number(apns.connections.connecting),
          ' connecting, ', number(apns.connections.backoff), ' in backoff')))),
    status.credentials.length > 0
      ? table('Credentials', [
        ['Credential', (c) => c.name],
        ['Status', (c) => badge(c.status === 'ok' ? 'ok' : 'refused')],
        ['Reason', (c) => c.reason ?? '—'],
        ['Since', (c) => time(c.since)],
        ['Certificate days left', (c) => number(c.certificateDaysLeft)],
      ], status.credentials)
      : null);
}

function renderQueue(section, status) {
  const queue = status.queue;
  fill(section, h('h2', { id: 'queue-heading' }, 'Queue'),
    queue === null
      ? h('p', { class: 'empty' }, `The database does not answer: ${status.database.status}`)
      : h('dl', { class: 'figures' },
        h('dt', {}, 'Single sends waiting'), h('dd', {}, number(queue.pending.single)),
        h('dt', {}, 'Oldest due single'), h('dd', {}, duration(queue.oldestDueSeconds.single)),
        h('dt', {}, 'Bulk deliveries waiting'), h('dd', {}, number(queue.pending.bulk)),
        h('dt', {}, 'Oldest due bulk'), h('dd', {}, duration(queue.oldestDueSeconds.bulk))));
}

function renderCampaigns(section, campaigns) {
  keepFocus(section, () => fill(section, h('h2', { id: 'running-heading' }, 'Campaigns running, scheduled or paused'),
    table('Campaigns running, scheduled or paused', [
      ['Campaign', (c) => link(c.id, `campaign/${c.id}`)],
      ['Status', (c) => badge(c.paused ? 'paused' : c.status)],
      ['Topic', (c) => c.topic],
      ['Deliveries', (c) => number(c.total)],
      ['Scheduled', (c) => time(c.scheduledAt)],
    ], campaigns, 'No campaign is running, scheduled or paused.')));
}

function renderWorkers(section, status) {
  fill(section, h('h2', { id: 'workers-heading' }, 'Workers'),
    table('Workers', [
      ['Worker', (w) => w.id],
      ['Host', (w) => `${w.host} (pid ${w.pid})`],
      ['State', (w) => badge(w.state)],
      ['Heartbeat', (w) => `${decimal(w.heartbeatAge)} s ago`],
      ['Leases', (w) => number(w.leases)],
      ['Waiting for', (w) => (w.waiting ? `${w.waiting.reason.replaceAll('_', ' ')}` : '—')],
    ], status.workers, 'No worker is registered: start `apnsd worker` or `apnsd serve` with its worker.'));
}
