// Deliveries: a search by token, user, status, reason, campaign and time window, newest first, a page at a time
// with the API's cursor (GET /v1/deliveries). The search is kept in the page's address, so it can be shared.
import { get } from './api.js';
import { badge, fill, h, keepFocus, link, number, route, table, time, title } from './dom.js';

const fields = [
  ['token', 'Token', 'text'], ['user', 'User', 'text'], ['campaign', 'Campaign', 'text'], ['reason', 'Reason', 'text'],
  ['since', 'Since (90m, 24h or a time)', 'text'], ['until', 'Until', 'text'],
];
const statuses = ['', 'pending', 'accepted', 'unregistered', 'rejected', 'failed', 'cancelled'];

export function mount(view, context) {
  const query = context.query;
  const form = h('form', { class: 'filters search', role: 'search', onsubmit: (event) => {
    event.preventDefault();
    const values = Object.fromEntries(new FormData(form));
    location.hash = route('deliveries', values);
  } },
  fields.map(([name, label, type]) => h('label', { for: `search-${name}` }, label,
    h('input', { id: `search-${name}`, name, type, value: query[name] ?? '', autocomplete: 'off', spellcheck: 'false' }))),
  h('label', { for: 'search-status' }, 'Status',
    h('select', { id: 'search-status', name: 'status' }, statuses.map((s) => h('option', { value: s, selected: s === (query.status ?? '') }, s || 'any')))),
  h('button', { type: 'submit' }, 'Search'));
  const results = h('div', { 'aria-live': 'polite' });
  fill(view, title('Deliveries'), form, results);
  const cursors = [];
  let after = query.after;
  // A page asked for by a button: a failure is said where the results go.
  const go = () => show().catch((error) => fill(results, h('p', { class: 'error', role: 'alert' }, error.message)));
  const show = async () => {
    const filters = Object.fromEntries(Object.entries(query).filter(([name]) => name !== 'after'));
    const page = await get('/v1/deliveries', { ...filters, after, limit: 50 }, context.signal);
    keepFocus(results, () => fill(results,
      table('Deliveries', [
        ['Delivery', (d) => d.id],
        ['Campaign', (d) => (d.campaign ? link(d.campaign, `campaign/${d.campaign}`) : '—')],
        ['Token', (d) => (d.token ? link(h('span', { class: 'token' }, d.token), 'devices', { token: d.token }) : `channel ${d.channel}`)],
        ['Status', (d) => badge(d.status)],
        ['Reason', (d) => d.reason ?? '—'],
        ['HTTP', (d) => d.httpStatus ?? '—'],
        ['Attempts', (d) => number(d.attempts)],
        ['Updated', (d) => time(d.updatedAt)],
      ], page.deliveries, 'No delivery matches.'),
      h('div', { class: 'pager' },
        cursors.length > 0 ? h('button', { type: 'button', 'data-key': 'newer', onclick: () => { after = cursors.pop(); go(); } }, 'Newer') : null,
        page.next ? h('button', { type: 'button', 'data-key': 'older', onclick: () => { cursors.push(after); after = page.next; go(); } }, 'Older') : null)));
  };
  let shown = false;
  // The newest page follows what the worker writes; an older page stays as it was read.
  return {
    every: 5000,
    async refresh() {
      if (shown && (cursors.length > 0 || after)) return;
      shown = true;
      await show();
    },
  };
}
