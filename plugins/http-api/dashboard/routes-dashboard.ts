// The dashboard (docs/dashboard.md): one page under /ui/, and / redirecting to it. The page is static (no
// build step: plain HTML, CSS and an ES module in ./assets) and loads without a token, like Swagger; it
// calls the API's own routes from the browser with the tokens a person enters, so it adds no second way to
// change anything. A strict Content-Security-Policy allows only this origin's scripts, styles and requests.
import { readdirSync, readFileSync } from 'node:fs';
import type { FastifyPluginAsync } from 'fastify';
import { PAGE_CSP } from '../content-security.js';

const CSP = PAGE_CSP;

/** Content types by extension; the page is HTML, CSS and ES modules of one concern each (app.js imports the rest). */
const TYPES: Readonly<Record<string, string>> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

/** The assets, read once: copied next to the compiled module by the build (scripts/copy-assets.mjs). */
function loadAssets(): Map<string, { type: string; body: Buffer }> {
  const dir = new URL('./assets/', import.meta.url);
  const assets = new Map<string, { type: string; body: Buffer }>();
  for (const name of readdirSync(dir).sort()) {
    const type = TYPES[name.slice(name.lastIndexOf('.') + 1)];
    if (type) assets.set(name, { type, body: readFileSync(new URL(name, dir)) });
  }
  return assets;
}

export function dashboardRoutes(): FastifyPluginAsync {
  const assets = loadAssets();
  return async (app) => {
    const hidden = { schema: { hide: true } };
    for (const url of ['/', '/ui']) app.get(url, hidden, async (_request, reply) => reply.redirect('/ui/', 302));
    for (const [name, { type, body }] of assets) {
      const url = name === 'index.html' ? '/ui/' : `/ui/${name}`;
      app.get(url, hidden, async (_request, reply) =>
        reply
          .header('content-type', type)
          .header('content-security-policy', CSP)
          .header('x-content-type-options', 'nosniff')
          .header('referrer-policy', 'no-referrer')
          .header('cache-control', 'no-cache')
          .send(body),
      );
    }
  };
}
