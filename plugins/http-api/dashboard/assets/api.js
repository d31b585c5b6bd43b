// The page's calls to the HTTP API (docs/dashboard.md): the main token, kept in sessionStorage only, goes
// in the Authorization header; the events token is the one the API takes in a query (EventSource cannot
// set headers), which is why it is a separate token.
export const store = window.sessionStorage;

/** The code of an engine that does not answer at all (docs/errors.md): the page shows it in a banner. */
export const ENGINE_UNREACHABLE = 'TW_ERR_ENGINE_UNREACHABLE';

/**
 * An API call with the pasted token, or else the session cookie of a person signed in with SSO (same-origin
 * requests carry it; docs/people.md#the-dashboard); resolves to { status, body } and never throws for an HTTP status.
 */
export async function api(method, path) {
  const token = store.getItem('tw-token');
  const res = await fetch(path, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  engineBanner(path, res.status, body);
  return { status: res.status, body };
}

export function errorText(res) {
  if (res.status === 401) return 'The API token was refused: sign in again.';
  if (res.status === 403 && res.body?.error?.startsWith('role ')) return `Your role may not do this (${res.body.error}).`;
  if (res.status === 429 && !res.body) return 'Too many requests: wait a moment.';
  return res.body?.error ?? `The API answered ${res.status}.`;
}

/**
 * The banner naming the engine that does not answer (docs/dashboard.md#when-the-engine-does-not-answer):
 * shown by any answer carrying that code, gone once the container list or a check answers again.
 */
function engineBanner(path, status, body) {
  const banner = document.getElementById('engine-banner');
  if (!banner) return;
  if (body?.code === ENGINE_UNREACHABLE) {
    banner.textContent = `The container engine does not answer. ${body.error}`;
    banner.hidden = false;
  } else if (status === 200 && (path === '/v1/containers' || path.startsWith('/v1/check'))) banner.hidden = true;
}
