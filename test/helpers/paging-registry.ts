// A loopback proxy in front of the real registry that pages `GET /v2/<name>/tags/list` the way Distribution 3,
// GHCR and Docker Hub do (Debian's Distribution 2.8 answers in one piece): tags in lexical order, `n` per
// page (capped at `pageCap`), `last` to resume after, and a relative `Link: </v2/<name>/tags/list?last=…&n=…>;
// rel="next"` while more remain. Every other request is forwarded untouched. It records every path asked
// for, so tests count tag-list pages and manifest requests.
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { LoopbackHttpServer } from './loopback-server.js';

export class PagingRegistry extends LoopbackHttpServer {
  readonly paths: string[] = [];

  constructor(
    readonly upstream: string,
    /** Largest page served whatever `n` asks (GHCR and Hub cap theirs). */
    readonly pageCap = 1000,
  ) {
    super();
  }

  /** Requests whose path (without the query) matches. */
  count(match: RegExp): number {
    return this.paths.filter((p) => match.test(p.split('?')[0] ?? '')).length;
  }

  clear(): void {
    this.paths.length = 0;
  }

  protected handle(req: IncomingMessage, res: ServerResponse): void {
    this.paths.push(`${req.method} ${req.url ?? '/'}`);
    const url = new URL(req.url ?? '/', `http://${this.host}`);
    const list = /^\/v2\/(.+)\/tags\/list$/.exec(url.pathname);
    if (list && req.method === 'GET') {
      void this.#page(req, res, url, list[1] ?? '');
      return;
    }
    this.#forward(req, res, req.url ?? '/');
  }

  async #page(req: IncomingMessage, res: ServerResponse, url: URL, name: string): Promise<void> {
    try {
      const upstream = await fetch(`http://${this.upstream}/v2/${name}/tags/list`, { headers: { accept: 'application/json' } });
      const text = await upstream.text();
      if (upstream.status !== 200) {
        res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
        return;
      }
      const all = ((JSON.parse(text) as { tags?: string[] | null }).tags ?? []).slice().sort();
      const n = Math.min(Number(url.searchParams.get('n') ?? this.pageCap) || this.pageCap, this.pageCap);
      const last = url.searchParams.get('last');
      const rest = last === null ? all : all.filter((tag) => tag > last);
      const page = rest.slice(0, n);
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (rest.length > n) {
        const next = `/v2/${name}/tags/list?last=${encodeURIComponent(page[page.length - 1] ?? '')}&n=${n}`;
        headers.link = `<${next}>; rel="next"`;
      }
      res.writeHead(200, headers).end(JSON.stringify({ name, tags: page }));
    } catch (err) {
      res.writeHead(502).end(String(err));
    }
    void req;
  }

  #forward(req: IncomingMessage, res: ServerResponse, path: string): void {
    const [hostname, port] = this.upstream.split(':') as [string, string];
    const upstream = httpRequest({ hostname, port: Number(port), method: req.method, path, headers: { ...req.headers, host: this.upstream } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', (err) => res.writeHead(502).end(err.message));
    req.pipe(upstream);
  }
}
