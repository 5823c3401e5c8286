// Events: the live feed of deactivations and failures (GET /v1/events, long-polled), newest first, pausable.
import { get } from './api.js';
import { badge, fill, h, keepFocus, link, table, time, title } from './dom.js';

const kept = 200;

export function mount(view, context) {
  const list = h('div');
  const state = h('span', { role: 'status' });
  let paused = false;
  let events = [];
  let cursor = null;
  let running = true;
  const toggle = h('button', { type: 'button', 'aria-pressed': 'false', onclick: () => {
    paused = !paused;
    toggle.setAttribute('aria-pressed', String(paused));
    fill(toggle, paused ? 'Resume' : 'Pause');
    fill(state, paused ? 'Paused: new events are not shown.' : 'Following.');
  } }, 'Pause');
  fill(view, title('Events', toggle, ' ', state), list);
  fill(state, 'Following.');
  const render = () => keepFocus(list, () => fill(list, table('Events', [
    ['At', (e) => time(e.at)],
    ['Event', (e) => badge(e.type.replace('.', '_'))],
    ['Token', (e) => link(h('span', { class: 'token' }, e.token), 'devices', { token: e.token })],
    ['Topic', (e) => e.topic],
    ['Reason', (e) => e.reason ?? '—'],
  ], events, 'No event yet.')));
  render();
  // The newest 200 events at once (last=), then long polls of up to 25 s after them, one a second at most; a burst of
  // more than a page is read page by page without waiting.
  const follow = async () => {
    try {
      const newest = await get('/v1/events', { last: kept }, context.signal);
      cursor = newest.next;
      events = newest.events.reverse();
      render();
      context.updated();
      while (running) {
        const page = await get('/v1/events', { after: cursor, limit: 1000, wait: 25 }, context.signal);
        cursor = page.next ?? cursor;
        if (page.events.length > 0 && !paused) events = [...page.events.reverse(), ...events].slice(0, kept);
        if (page.events.length < 1000) {
          render();
          context.updated();
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      }
    } catch (error) {
      if (error.name !== 'AbortError') fill(state, `Stopped: ${error.message}`);
    }
  };
  return {
    every: 0,
    async refresh() { follow(); },
    unmount() { running = false; },
  };
}
