// Random and mutated HTTP requests for the fuzz suite, drawn from a seeded PRNG: methods, paths, query
// values (patterns among them), headers, credentials and bodies, plus byte-level mutations of the head.
// Every request here is complete (a body matches its length), so any that hangs is the server's fault.
import type { Prng } from './prng.js';
import type { FuzzRoute } from './routes.js';

export interface Credentials {
  readonly token: string;
  readonly eventsToken: string;
  /** A webhook receiver's token, and another's HMAC secret (docs/webhooks.md). */
  readonly hookToken: string;
  readonly hookSecret: string;
}

/** A route's path with each `{name}` filled: mostly from the route's known values, else random. */
function fillPath(rng: Prng, route: FuzzRoute): string {
  return route.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const known = route.params?.[name];
    return known && rng.chance(0.7) ? rng.pick(known) : rng.string(rng.int(1, 12), NAMEISH);
  });
}

export interface FuzzRequest {
  readonly bytes: Buffer;
  readonly head: boolean;
  /** One line for failure messages: method, target, what was varied. */
  readonly label: string;
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'CONNECT', 'PROPFIND', 'get', 'P0ST'];
const PRINTABLE = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&\'()*+,;=:@/?%#[]{}|\\^`"<> ';
const NAMEISH = 'abcdefghijklmnopqrstuvwxyz0123456789-_.';

function randomPath(rng: Prng, routes: readonly FuzzRoute[]): string {
  const base = fillPath(rng, rng.pick(routes));
  switch (rng.int(0, 9)) {
    case 0:
      return `${base}/`;
    case 1:
      return base.toUpperCase();
    case 2:
      return `/${rng.string(rng.int(0, 40), NAMEISH + '/')}`;
    case 3:
      return `${base}/../${rng.pick(['etc/passwd', 'v1/config', '..', '%2e%2e'])}`;
    case 4:
      return `/${encodeURIComponent(rng.string(rng.int(1, 30), PRINTABLE))}`;
    case 5:
      return `/${'a'.repeat(rng.int(1000, 7000))}`;
    case 6:
      return `//${base.slice(1)}`;
    case 7:
      return `${base}%00`;
    default:
      return base;
  }
}

/** A pattern in or beyond the limits of docs/http-api.md#pattern-limits. */
export function randomPattern(rng: Prng): string {
  switch (rng.int(0, 7)) {
    case 0:
      return `${rng.string(3, NAMEISH)}${'(?:ab|cd){1000}'.repeat(rng.int(1, 200))}`;
    case 1:
      return `${rng.string(2, NAMEISH)}${'\\pL{100}'.repeat(rng.int(1, 5))}`;
    case 2:
      return `(?:(?:a{${rng.int(1, 20)}}){${rng.int(1, 20)}}){${rng.int(1, 20)}}`;
    case 3:
      return `${rng.string(rng.int(1, 10), NAMEISH)}.*`;
    case 4:
      return rng.string(rng.int(1, 300), '()[]{}|*+?.\\^$abc0123,-:');
    case 5:
      return `(?i)${rng.string(rng.int(1, 20), NAMEISH)}[[:alpha:]]+`;
    default:
      return rng.string(rng.int(1, 20), NAMEISH);
  }
}

function randomValue(rng: Prng, name: string): string {
  if (name === 'container' && rng.chance(0.6)) return randomPattern(rng);
  if (name === 'timeout') return rng.pick(['1ms', '50ms', '2s', '10s', '0s', '-1s', '1h', 'abc', '9999999999h', '1.5s', '']);
  if (name === 'async') return rng.pick(['true', 'false', '1', '0', 'maybe', '', 'TRUE']);
  if (name === 'since' || name === 'until') return rng.pick(['2024-01-01T00:00:00Z', 'yesterday', '', '9999-12-31T23:59:59Z', '2024-13-45T99:99:99Z']);
  if (name === 'limit' || name === 'last_event_id') return rng.pick(['0', '1', '-1', '10', '1e9', 'x', '99999999999999999999']);
  if (name === 'image') return rng.pick(['busybox', 'nginx:1.25', '127.0.0.1:5201/x/y:latest', '::::', rng.string(rng.int(1, 80), PRINTABLE)]);
  return rng.string(rng.int(0, 40), PRINTABLE);
}

function query(rng: Prng, route: FuzzRoute, credentials: Credentials): string {
  const names = [...(route.query ?? []), ...(rng.chance(0.2) ? [rng.string(rng.int(1, 8), NAMEISH)] : [])];
  const pairs: string[] = [];
  for (const name of names) {
    if (!rng.chance(0.5)) continue;
    const repeat = rng.chance(0.15) ? 2 : 1;
    for (let i = 0; i < repeat; i++) {
      const value = name === 'access_token' && rng.chance(0.7) ? credentials.eventsToken : randomValue(rng, name);
      pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    }
  }
  if (rng.chance(0.05)) pairs.push(rng.string(rng.int(1, 30), PRINTABLE).replace(/[ #]/g, '_'));
  return pairs.length === 0 ? '' : `?${pairs.join('&')}`;
}

function authHeaders(rng: Prng, route: FuzzRoute, credentials: Credentials): string[] {
  const token = route.auth === 'events' ? credentials.eventsToken : route.auth === 'hook' ? credentials.hookToken : credentials.token;
  switch (rng.int(0, 9)) {
    case 0:
      return [];
    case 1:
      return ['Authorization: '];
    case 2:
      return [`Authorization: Bearer ${rng.string(rng.int(0, 64), NAMEISH)}`];
    case 3:
      return [`Cookie: access_token=${token}`];
    case 4:
      return ['Authorization: ', `Cookie: access_token=${token}`];
    case 5:
      return [`Authorization: ${token}`];
    case 6:
      return [`Authorization: Basic ${Buffer.from(`x:${token}`).toString('base64')}`];
    default:
      return [`Authorization: Bearer ${token}`];
  }
}

function extraHeaders(rng: Prng): string[] {
  const headers: string[] = [];
  const count = rng.int(0, 4);
  for (let i = 0; i < count; i++) {
    headers.push(
      rng.pick([
        `X-Forwarded-For: ${rng.pick(['203.0.113.9', 'garbage', '::1, 10.0.0.1', rng.string(rng.int(1, 100), PRINTABLE)])}`,
        `Origin: ${rng.pick(['http://evil.example', 'null', 'http://127.0.0.1', rng.string(rng.int(1, 40), PRINTABLE)])}`,
        `Accept: ${rng.pick(['*/*', 'text/event-stream', 'application/json', 'x/y;q=0', ''])}`,
        `Last-Event-ID: ${rng.pick(['0', '5', '-3', 'abc', '9999999999999999999'])}`,
        `Content-Type: ${rng.pick(['application/json', 'text/plain', 'multipart/form-data; boundary=x', '', 'x'.repeat(300)])}`,
        `X-Long: ${'v'.repeat(rng.int(100, 8000))}`,
        `Accept-Encoding: ${rng.pick(['gzip', 'br', 'identity;q=0', '*'])}`,
        `If-None-Match: "${rng.string(8, NAMEISH)}"`,
        `Range: bytes=${rng.int(0, 100)}-${rng.int(0, 100)}`,
        `Connection: ${rng.pick(['keep-alive', 'close', 'Upgrade', 'x'])}`,
        `${rng.string(rng.int(1, 20), NAMEISH)}: ${rng.string(rng.int(0, 60), PRINTABLE.replace(/[\r\n]/g, ''))}`,
      ]),
    );
  }
  return headers;
}

function body(rng: Prng, route: FuzzRoute): { headers: string[]; bytes: Buffer } {
  if (!route.body && !rng.chance(0.25)) return { headers: [], bytes: Buffer.alloc(0) };
  switch (rng.int(0, 3)) {
    case 0: {
      const bytes = Buffer.from(JSON.stringify({ ref: 'refs/heads/main', repository: { name: rng.string(8, NAMEISH) }, n: rng.next() }));
      return { headers: ['Content-Type: application/json', `Content-Length: ${bytes.length}`], bytes };
    }
    case 1: {
      const data = rng.bytes(rng.int(1, 2000));
      const chunked = Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n0\r\n\r\n')]);
      return { headers: ['Transfer-Encoding: chunked'], bytes: chunked };
    }
    case 2: {
      const bytes = rng.bytes(rng.int(0, 4000));
      return { headers: [`Content-Length: ${bytes.length}`], bytes };
    }
    default:
      return { headers: ['Content-Length: 0'], bytes: Buffer.alloc(0) };
  }
}

/** Flips, drops or inserts bytes in the head only, so the request stays complete. */
function mutateHead(rng: Prng, head: string): string {
  const chars = [...head.slice(0, -4)];
  const edits = rng.int(1, 3);
  for (let i = 0; i < edits && chars.length > 0; i++) {
    const at = rng.int(0, chars.length - 1);
    switch (rng.int(0, 3)) {
      case 0:
        chars[at] = String.fromCharCode(rng.int(0, 255));
        break;
      case 1:
        chars.splice(at, 1);
        break;
      case 2:
        chars.splice(at, 0, rng.pick(['\r\n', '\n', '\0', ':', ' ', '\t', '\x7f', '\xe9']));
        break;
      default:
        chars.splice(at, 0, rng.pick(['HTTP/1.0', 'HTTP/2.0', 'HTTP/0.9', '\r\nX: y']));
    }
  }
  // A blank line inside would end the head early and make two requests of one: the client would
  // then see an answer it did not count on. One request stays one request.
  return `${chars.join('').replace(/(?:\r?\n){2,}/g, '\r\n')}\r\n\r\n`;
}

/** One random, possibly mutated, request aimed at one of `routes`. */
export function randomRequest(rng: Prng, routes: readonly FuzzRoute[], credentials: Credentials): FuzzRequest {
  const route = rng.pick(routes);
  const method = rng.chance(0.75) ? (rng.chance(0.15) && route.method === 'GET' ? 'HEAD' : route.method) : rng.pick(METHODS);
  const path = rng.chance(0.85) ? fillPath(rng, route) : randomPath(rng, routes);
  const target = `${path}${query(rng, route, credentials)}`;
  const content = method === 'HEAD' || method === 'GET' ? (rng.chance(0.1) ? body(rng, route) : { headers: [], bytes: Buffer.alloc(0) }) : body(rng, route);
  const lines = [`${method} ${target} HTTP/1.1`, ...(rng.chance(0.95) ? ['Host: 127.0.0.1'] : []), ...authHeaders(rng, route, credentials), ...extraHeaders(rng), ...content.headers];
  let head = `${lines.join('\r\n')}\r\n\r\n`;
  const mutated = content.bytes.length === 0 && rng.chance(0.12);
  if (mutated) head = mutateHead(rng, head);
  return {
    bytes: Buffer.concat([Buffer.from(head, 'latin1'), content.bytes]),
    head: /^HEAD /.test(head),
    label: `${mutated ? 'mutated ' : ''}${method} ${target.slice(0, 120)}`,
  };
}
