// The dashboard endpoint over HTTP (docs/dashboard.md): served under /ui/ without a token, / and /ui
// redirect there, a strict Content-Security-Policy on every file, nothing served when the endpoint is
// off, no dashboard route in the API description, and the first load within its 150 KB budget.
import { readdirSync } from 'node:fs';
import t from 'tap';
import { startApi, target } from './helpers/harness.js';

const FIRST_LOAD_BUDGET = 150 * 1024;
/** The page's ES modules (app.js imports the others): each is part of the first load. */
const MODULES = readdirSync(new URL('../../../plugins/http-api/dashboard/assets/', import.meta.url)).filter((f) => f.endsWith('.js'));

t.test('served under /ui/ with a strict CSP, no token needed', async (t) => {
  const h = await startApi({}, { targets: [target('web')] });
  t.teardown(() => h.close());

  let total = 0;
  for (const [path, type] of [
    ['/ui/', /^text\/html/],
    ['/ui/app.css', /^text\/css/],
    ...MODULES.map((m) => [`/ui/${m}`, /^text\/javascript/] as const),
  ]) {
    const res = await fetch(`${h.url}${path}`);
    t.equal(res.status, 200, `${path} loads without a token`);
    t.match(res.headers.get('content-type'), type, `${path} content type`);
    const csp = res.headers.get('content-security-policy') ?? '';
    t.match(csp, /default-src 'none'/, `${path}: default-src 'none'`);
    t.match(csp, /script-src 'self'(;|$)/, `${path}: only this origin's scripts, no inline`);
    t.notMatch(csp, /unsafe-inline|unsafe-eval|\*/, `${path}: nothing unsafe`);
    t.match(csp, /frame-ancestors 'none'/);
    t.equal(res.headers.get('x-content-type-options'), 'nosniff');
    total += (await res.arrayBuffer()).byteLength;
  }
  t.ok(total <= FIRST_LOAD_BUDGET, `first load ${total} bytes ≤ ${FIRST_LOAD_BUDGET}`);

  const page = await (await fetch(`${h.url}/ui/`)).text();
  t.notMatch(page, /<script>|<style>| style=| on[a-z]+=/i, 'no inline script, style or handler (the CSP would block it)');
  t.match(page, /<script type="module" src="\/ui\/app.js">/);

  for (const path of ['/', '/ui']) {
    const res = await fetch(`${h.url}${path}`, { redirect: 'manual' });
    t.equal(res.status, 302, `${path} redirects`);
    t.equal(res.headers.get('location'), '/ui/');
  }

  const doc = (await (await fetch(`${h.url}/swagger/doc.json`)).json()) as { paths: Record<string, unknown> };
  t.same(
    Object.keys(doc.paths).filter((p) => p === '/' || p.startsWith('/ui')),
    [],
    'the page is not an API operation',
  );
});

t.test('not served when the endpoint is off', async (t) => {
  const h = await startApi({ endpoints: ['check', 'health'] }, { targets: [target('web')] });
  t.teardown(() => h.close());
  for (const path of ['/', '/ui/', '/ui/app.js']) {
    const res = await fetch(`${h.url}${path}`, { redirect: 'manual' });
    t.equal(res.status, 404, `${path} is 404`);
  }
});

t.test('the scripts keep the main token out of addresses and storage other than the session', async (t) => {
  const h = await startApi({}, { targets: [target('web')] });
  t.teardown(() => h.close());
  // Every module of the page, as served (app.js imports the others).
  t.ok(MODULES.length > 1, 'the page is split into modules');
  const script = (await Promise.all(MODULES.map(async (m) => (await fetch(`${h.url}/ui/${m}`)).text()))).join('\n');
  t.notMatch(script, /localStorage/, 'never localStorage');
  t.match(script, /sessionStorage/);
  // The only token put in an address is the events token (EventSource cannot send headers).
  const inUrls = [...script.matchAll(/access_token=\$\{encodeURIComponent\((\w+)\)\}/g)].map((m) => m[1]);
  t.same(inUrls, ['token']);
  t.match(script, /const token = store\.getItem\('tw-events-token'\)/, 'and that variable is the events token');
});
