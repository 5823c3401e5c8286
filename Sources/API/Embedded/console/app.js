// The console's shell: sign-in with an API key, the pages (by the URL's hash, so that a page can be linked and
// reloaded), each refreshed at most once a second while it is shown, and the banner while APNs is out of reach or a
// credential is refused.
import { APIError, call, get, onUnauthorized, session } from './api.js';
import { fill, h, now } from './dom.js';
import * as overview from './overview.js';
import * as campaigns from './campaigns.js';
import * as campaign from './campaign.js';
import * as deliveries from './deliveries.js';
import * as devices from './devices.js';
import * as events from './events.js';

const pages = { overview, campaigns, campaign, deliveries, devices, events };
const $ = (id) => document.getElementById(id);

/** What the pages share: the key's name and scopes, and the last status read (for the banner). */
const context = {
  key: null,
  /** Whether the key may do `scope` (`admin` for the campaign buttons). */
  may(scope) { return this.key?.scopes.includes(scope) ?? false; },
  confirm,
  showBanner,
  /** Says the page has just been updated (pages that update themselves, as the events feed). */
  updated() { fill($('refreshed'), `Updated ${now()}`); },
};

let current = null;

function showSignIn(message = '') {
  stopPage();
  context.key = null;
  $('nav').hidden = true;
  $('session').hidden = true;
  $('banner').hidden = true;
  fill($('page'));
  fill($('refreshed'));
  $('sign-in').hidden = false;
  fill($('sign-in-error'), message);
  $('key').value = '';
  $('key').focus();
}

async function signIn(key) {
  const info = await call('GET', '/v1/key', { key });
  session.set(key);
  context.key = info;
  $('sign-in').hidden = true;
  $('nav').hidden = false;
  $('session').hidden = false;
  fill($('key-name'), `Key: ${info.name}`);
  if (!location.hash.startsWith('#/')) location.hash = '#/overview';
  else show();
}

function signOut(message) {
  session.clear();
  showSignIn(message);
}

onUnauthorized(() => signOut('The API key was refused: it is wrong, or it has been revoked. Sign in again.'));

$('sign-in').addEventListener('submit', async (event) => {
  event.preventDefault();
  const key = $('key').value.trim();
  if (!key) return;
  try {
    await signIn(key);
  } catch (error) {
    session.clear();
    fill($('sign-in-error'), error instanceof APIError && error.status === 401
      ? 'That key is not valid: it is wrong, or it has been revoked.'
      : error.message);
  }
});
$('sign-out').addEventListener('click', () => signOut('Signed out.'));

/** Parses `#/page/arg?query`. */
function parseHash() {
  const [path, search = ''] = location.hash.replace(/^#\/?/, '').split('?');
  const [name, ...rest] = path.split('/');
  return { name: name || 'overview', argument: rest.join('/'), query: Object.fromEntries(new URLSearchParams(search)) };
}

function stopPage() {
  if (!current) return;
  current.stopped = true;
  current.abort.abort();
  clearTimeout(current.timer);
  current.page.unmount?.();
  current = null;
}

/** Shows the page the hash names and refreshes it: after each refresh ends, the next one at least a second later. */
function show() {
  if (!context.key) return;
  stopPage();
  const { name, argument, query } = parseHash();
  const module = pages[name] ?? overview;
  for (const a of $('nav').querySelectorAll('a')) {
    if (a.getAttribute('href') === `#/${name}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const view = h('div', { class: 'view' });
  fill($('page'), view);
  const state = { abort: new AbortController(), stopped: false, timer: 0 };
  state.page = module.mount(view, { ...context, argument, query, signal: state.abort.signal });
  current = state;
  const refresh = async () => {
    if (state.stopped) return;
    try {
      await state.page.refresh();
      if (state.stopped) return;
      context.updated();
      await updateBanner(state.abort.signal);
    } catch (error) {
      if (state.stopped || error.name === 'AbortError') return;
      fill($('refreshed'), `Not updated: ${error.message} (${now()})`);
    }
    if (!state.stopped && state.page.every) state.timer = setTimeout(refresh, Math.max(1000, state.page.every));
  };
  refresh();
}

let lastBannerCheck = 0;

/** The banner: APNs unreachable for a live worker, or a credential refused (from `/v1/status`, every 5 s at most). */
async function updateBanner(signal) {
  if (Date.now() - lastBannerCheck < 5000) return;
  lastBannerCheck = Date.now();
  showBanner(await get('/v1/status', {}, signal));
}

/** Sets the banner from a status (the overview passes the one it read). */
function showBanner(status) {
  lastBannerCheck = Date.now();
  const problems = [];
  for (const [environment, apns] of Object.entries(status.apns ?? {})) {
    if (!apns.reachable) problems.push(`APNs (${environment}) is unreachable: deliveries wait and are retried.`);
  }
  for (const credential of status.credentials ?? []) {
    if (credential.status !== 'ok') {
      problems.push(`Credential ${credential.name} is refused${credential.reason ? `: ${credential.reason}` : ''}; its deliveries wait.`);
    }
  }
  const banner = $('banner');
  banner.hidden = problems.length === 0;
  fill(banner, problems.map((problem) => h('p', {}, problem)));
}

/** Asks before an action: resolves true when confirmed. */
function confirm(heading, text, action) {
  const dialog = $('confirm');
  fill($('confirm-title'), heading);
  fill($('confirm-text'), text);
  fill($('confirm-ok'), action);
  return new Promise((resolve) => {
    const done = (answer) => () => {
      dialog.close();
      $('confirm-ok').onclick = null;
      $('confirm-no').onclick = null;
      resolve(answer);
    };
    $('confirm-ok').onclick = done(true);
    $('confirm-no').onclick = done(false);
    dialog.oncancel = () => resolve(false);
    dialog.showModal();
    $('confirm-no').focus();
  });
}

window.addEventListener('hashchange', show);

if (session.key) {
  signIn(session.key).catch((error) => {
    if (error instanceof APIError && error.status === 401) return;
    showSignIn(error.message);
  });
} else {
  showSignIn();
}
