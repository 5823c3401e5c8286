// Devices: a token's registrations, or a user's devices, with registration, deactivation and its reason, and the
// recent deliveries (GET /v1/devices/{token}, /v1/devices?user=, /v1/deliveries).
import { APIError, get } from './api.js';
import { badge, fill, h, keepFocus, link, number, route, table, time, title } from './dom.js';

export function mount(view, context) {
  const { token = '', user = '' } = context.query;
  const form = h('form', { class: 'filters search', role: 'search', onsubmit: (event) => {
    event.preventDefault();
    location.hash = route('devices', Object.fromEntries(new FormData(form)));
  } },
  h('label', { for: 'device-token' }, 'Token', h('input', { id: 'device-token', name: 'token', value: token, autocomplete: 'off', spellcheck: 'false' })),
  h('label', { for: 'device-user' }, 'or user', h('input', { id: 'device-user', name: 'user', value: user, autocomplete: 'off', spellcheck: 'false' })),
  h('button', { type: 'submit' }, 'Look up'));
  const found = h('section', { 'aria-live': 'polite' });
  const recent = h('section');
  fill(view, title('Devices'), form, found, recent);
  return {
    every: token || user ? 5000 : 0,
    async refresh() {
      if (!token && !user) {
        fill(found, h('p', { class: 'empty' }, 'Look up a device token, or a user id to see all of its devices.'));
        return;
      }
      let devices = [];
      try {
        devices = token
          ? [await get(`/v1/devices/${encodeURIComponent(token)}`, {}, context.signal)]
          : (await get('/v1/devices', { user, limit: 100 }, context.signal)).devices;
      } catch (error) {
        if (!(error instanceof APIError) || (error.status !== 404 && error.status !== 400)) throw error;
        fill(found, h('p', { class: 'empty' }, error.message));
        fill(recent);
        return;
      }
      fill(found, h('h2', {}, token ? 'Registration' : `Devices of ${user}`),
        table('Devices', [
          ['Token', (d) => h('span', { class: 'token' }, d.token)],
          ['Topic', (d) => d.topic],
          ['User', (d) => d.user ?? '—'],
          ['Environment', (d) => d.environment],
          ['Kind', (d) => d.kind],
          ['State', (d) => badge(d.active ? 'active' : 'inactive')],
          ['Registered', (d) => time(d.registeredAt)],
          ['Deactivated', (d) => time(d.deactivatedAt)],
          ['Reason', (d) => d.reason ?? '—'],
        ], devices, 'No device.'));
      const deliveries = await get('/v1/deliveries', token ? { token, limit: 10 } : { user, limit: 10 }, context.signal);
      keepFocus(recent, () => fill(recent, h('h2', {}, 'Recent deliveries'),
        table('Recent deliveries', [
          ['Campaign', (d) => link(d.campaign, `campaign/${d.campaign}`)],
          ['Token', (d) => h('span', { class: 'token' }, d.token ?? '—')],
          ['Status', (d) => badge(d.status)],
          ['Reason', (d) => d.reason ?? '—'],
          ['Attempts', (d) => number(d.attempts)],
          ['Updated', (d) => time(d.updatedAt)],
        ], deliveries.deliveries, 'No delivery yet.')));
    },
  };
}
