// The API, called with the key kept in this tab's sessionStorage: sent only as a Bearer header, only to this
// origin (every URL is built on location.origin), never put in a URL or a log.
const storageKey = 'apnsd.key';

export class APIError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const session = {
  get key() { return sessionStorage.getItem(storageKey); },
  set(key) { sessionStorage.setItem(storageKey, key); },
  clear() { sessionStorage.removeItem(storageKey); },
};

let unauthorized = () => {};

/** Calls `handler(error)` when the API answers 401: the key was revoked or is wrong. */
export function onUnauthorized(handler) { unauthorized = handler; }

/** `method path?query` with the key; the decoded JSON, or an APIError with the API's message. */
export async function call(method, path, { query = {}, signal, key = session.key } = {}) {
  if (!key) throw new APIError(401, 'unauthorized', 'Sign in with an API key.');
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== '') url.searchParams.set(name, String(value));
  }
  let response;
  try {
    response = await fetch(url, {
      method, signal, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer',
      headers: { Authorization: `Bearer ${key}`, Accept: 'application/json' },
    });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    throw new APIError(0, 'unreachable', 'apnsd does not answer: is `apnsd serve` running?');
  }
  const body = await response.json().catch(() => null);
  if (response.ok) return body;
  const detail = body?.error ?? {};
  const error = new APIError(response.status, detail.code ?? `http_${response.status}`,
    detail.message ?? `HTTP ${response.status}`);
  if (response.status === 401) unauthorized(error);
  throw error;
}

export const get = (path, query, signal) => call('GET', path, { query, signal });
export const post = (path) => call('POST', path);
