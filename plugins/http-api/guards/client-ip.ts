// Who is asking, and over which scheme. Behind a reverse proxy the peer is the proxy, so the client
// comes from `--http-api-proxy-header`; that header (and X-Forwarded-Proto) is believed only when the
// peer is listed in `--http-api-trusted-proxies`, or anyone could pick the IP the rate limiter and
// the authentication log see, and the scheme the Swagger description advertises.
import { TidewatchError } from '../../../core/index.js';
import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** `::ffff:10.1.2.3` is how a dual-stack socket shows an IPv4 peer; compare it as IPv4. */
export function normaliseIp(address: string): string {
  const trimmed = address.trim().replace(/^\[(.*)\]$/, '$1');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  return mapped ? (mapped[1] as string) : trimmed;
}

export interface ClientInfo {
  /** The client's IP: the peer, or what a trusted proxy said. */
  readonly ip: string;
  /** The peer is a trusted proxy. */
  readonly viaTrustedProxy: boolean;
}

export class ProxyTrust {
  readonly #list = new BlockList();
  readonly #any: boolean;
  readonly #header: string;
  readonly #cache = new WeakMap<FastifyRequest, ClientInfo>();

  constructor(trusted: readonly string[], header: string) {
    for (const entry of trusted) {
      const [address = '', bits] = entry.split('/');
      const ip = normaliseIp(address);
      const family = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
      if (isIP(ip) === 0) throw new TidewatchError('TW_ERR_INVALID_VALUE', `trusted proxy ${JSON.stringify(entry)} is not an IP address or CIDR`, 400);
      if (bits === undefined) this.#list.addAddress(ip, family);
      else this.#list.addSubnet(ip, Number(bits), family);
    }
    this.#any = trusted.length > 0;
    this.#header = header.toLowerCase();
  }

  isTrusted(address: string): boolean {
    if (!this.#any) return false;
    const ip = normaliseIp(address);
    const family = isIP(ip);
    if (family === 0) return false;
    return this.#list.check(ip, family === 6 ? 'ipv6' : 'ipv4');
  }

  client(request: FastifyRequest): ClientInfo {
    let info = this.#cache.get(request);
    if (!info) {
      info = this.#resolve(request);
      this.#cache.set(request, info);
    }
    return info;
  }

  /** `https` when the socket is TLS, or when a trusted proxy says the client used https. */
  protocol(request: FastifyRequest): 'http' | 'https' {
    if ((request.raw.socket as { encrypted?: boolean }).encrypted) return 'https';
    if (!this.client(request).viaTrustedProxy) return 'http';
    const forwarded = firstValue(request.headers['x-forwarded-proto'])?.toLowerCase();
    return forwarded === 'https' ? 'https' : 'http';
  }

  /** The Host the client used: the Host header, or X-Forwarded-Host from a trusted proxy. */
  host(request: FastifyRequest): string | undefined {
    const forwarded = this.client(request).viaTrustedProxy ? firstValue(request.headers['x-forwarded-host']) : undefined;
    return forwarded ?? request.headers.host;
  }

  #resolve(request: FastifyRequest): ClientInfo {
    const peer = normaliseIp(request.raw.socket.remoteAddress ?? '');
    if (!this.isTrusted(peer)) return { ip: peer, viaTrustedProxy: false };
    const raw = request.headers[this.#header];
    const hops = (Array.isArray(raw) ? raw.join(',') : (raw ?? ''))
      .split(',')
      .map((v) => normaliseIp(v))
      .filter((v) => isIP(v) !== 0);
    // Walk from the nearest hop outwards: the first address that is not one of our proxies is the
    // client; entries left of it were written by the client itself and prove nothing.
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i] as string;
      if (!this.isTrusted(hop)) return { ip: hop, viaTrustedProxy: true };
    }
    return { ip: hops[0] ?? peer, viaTrustedProxy: true };
  }
}

function firstValue(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  const first = text?.split(',')[0]?.trim();
  return first === '' ? undefined : first;
}
