// Campaigns: the list, filtered by kind and status, each with its progress, rate, ETA and what it waits for, and the
// admin's buttons (GET /v1/campaigns, GET /v1/campaigns/{id} for those not finished).
import { get } from './api.js';
import { campaignActions, progress } from './actions.js';
import { badge, decimal, fill, h, keepFocus, link, route, table, time, title } from './dom.js';

const statuses = ['', 'draft', 'scheduled', 'running', 'completed', 'cancelled'];
const kinds = ['bulk', 'single', 'verify'];

export function mount(view, context) {
  const { kind = 'bulk', status = '' } = context.query;
  const message = h('p', { class: 'message', role: 'status' });
  const list = h('div');
  const select = (id, label, options, value) => h('label', { for: id }, label, ' ',
    h('select', { id, onchange: apply }, options.map((option) => h('option', { value: option, selected: option === value }, option || 'any'))));
  const filters = h('form', { class: 'filters', onsubmit: (event) => event.preventDefault() },
    select('filter-kind', 'Kind', kinds, kind), select('filter-status', 'Status', statuses, status));
  function apply() {
    location.hash = route('campaigns', {
      kind: filters.querySelector('#filter-kind').value, status: filters.querySelector('#filter-status').value,
    });
  }
  fill(view, title('Campaigns'), filters, message, list);
  let pages = 1;
  const cache = new Map();
  const more = h('button', { type: 'button', 'data-key': 'more', onclick: () => { pages += 1; } }, 'Show more');
  const page = {
    every: 1000,
    async refresh() {
      let campaigns = [];
      let next = null;
      for (let index = 0; index < pages; index += 1) {
        const answer = await get('/v1/campaigns', { kind, status, limit: 25, after: next }, context.signal);
        campaigns = campaigns.concat(answer.campaigns);
        next = answer.next;
        if (!next) break;
      }
      // A finished campaign's report changes only by a retry: read again every 30 s, the others every time.
      const reports = await Promise.all(campaigns.map(async (c) => {
        const known = cache.get(c.id);
        const finished = c.status === 'completed' || c.status === 'cancelled';
        if (known && finished && known.report.status === c.status && Date.now() - known.at < 30_000) return known.report;
        const report = await get(`/v1/campaigns/${encodeURIComponent(c.id)}`, {}, context.signal);
        cache.set(c.id, { report, at: Date.now() });
        return report;
      }));
      keepFocus(list, () => fill(list,
        table('Campaigns', [
          ['Campaign', (c) => link(c.id, `campaign/${c.id}`)],
          ['Status', (c) => badge(c.paused ? 'paused' : c.status)],
          ['Topic', (c) => c.topic],
          ['Progress', (c) => progress(c)],
          ['Rate', (c) => (c.counts && c.status === 'running' ? `${decimal(c.ratePerSecond)}/s` : '—')],
          ['ETA', (c) => (c.waiting ? h('span', { class: 'waiting' }, `Waiting: ${c.waiting.reason.replaceAll('_', ' ')}`) : c.eta ? time(c.eta) : '—')],
          ['Created', (c) => time(c.createdAt)],
          ['Actions', (c) => campaignActions(c, context, (text) => fill(message, text)) ?? '—'],
        ], reports, 'No campaign matches.'),
        next ? more : null));
    },
  };
  return page;
}
