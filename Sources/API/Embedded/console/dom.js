// Elements built from text only: every string that comes from the API goes in as a text node (textContent), never
// as HTML. Numbers in the user's locale; times in local time, with UTC on hover.

/** `<tag attributes>children</tag>`: `on…` attributes are listeners, `class` the class name; other values are set as
 * attributes (false, null and undefined leave them out); children are nodes or text. */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) element.addEventListener(name.slice(2), value);
    else if (name === 'class') element.className = value;
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  append(element, children);
  return element;
}

function append(element, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces `element`'s children. */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
  return element;
}

const numbers = new Intl.NumberFormat();
const decimals = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const dates = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

/** A count in the user's locale; a dash for none. */
export const number = (value) => (value === null || value === undefined ? '—' : numbers.format(value));

/** A rate or a fraction, one decimal at most. */
export const decimal = (value) => (value === null || value === undefined ? '—' : decimals.format(value));

/** A `<time>` in local time, with its UTC time on hover; a dash for none. */
export function time(iso) {
  if (!iso) return '—';
  const date = new Date(iso);
  return h('time', { datetime: date.toISOString(), title: `${date.toISOString().replace('T', ' ').slice(0, 19)} UTC` },
    dates.format(date));
}

/** Hours:minutes:seconds now, in local time. */
export const now = () => clock.format(new Date());

/** Seconds as "2 h 5 min", "3 min 20 s" or "12 s". */
export function duration(seconds) {
  if (seconds === null || seconds === undefined) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s >= 3600) return `${numbers.format(Math.floor(s / 3600))} h ${Math.floor((s % 3600) / 60)} min`;
  if (s >= 60) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${s} s`;
}

/** A table: `columns` are [heading, cell(row)] pairs; `caption` names it for screen readers. */
export function table(caption, columns, rows, empty = 'None.') {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  return h('div', { class: 'scroll' },
    h('table', {},
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, columns.map(([heading]) => h('th', { scope: 'col' }, heading)))),
      h('tbody', {}, rows.map((row) => h('tr', {}, columns.map(([, cell]) => h('td', {}, cell(row))))))));
}

/** A link inside the console: `#/page?query`. */
export function link(text, page, query = {}) {
  const href = route(page, query);
  return h('a', { href, 'data-key': href }, text);
}

/** Runs `render`, which replaces what `container` shows, and gives the focus back to the control that had it (the
 * one with the same `data-key`), so that a page refreshing every second does not take it from a keyboard. */
export function keepFocus(container, render) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.getAttribute('data-key') : null;
  render();
  if (key) container.querySelector(`[data-key="${CSS.escape(key)}"]`)?.focus();
}

/** The hash of a page with its query (empty values left out). */
export function route(page, query = {}) {
  const search = new URLSearchParams(Object.entries(query).filter(([, value]) => value !== undefined && value !== ''));
  const text = search.toString();
  return `#/${page}${text ? `?${text}` : ''}`;
}

/** A status word, coloured by what it means (text says it too). */
export function badge(status) {
  return h('span', { class: `badge badge-${String(status).replace(/[^a-z_]/gi, '')}` }, status);
}

/** A heading row with the page title. */
export function title(text, ...more) {
  return h('div', { class: 'title' }, h('h1', {}, text), more);
}
