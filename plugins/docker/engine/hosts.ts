// The engines Tidewatch watches (docs/hosts.md): `--host` given once or more (or TIDEWATCH_HOSTS as a list,
// or DOCKER_HOST for one), each entry a DOCKER_HOST value with, for a `tcp://` engine, its own TLS settings
// as query parameters named after the flags they override:
//
//   tcp://10.0.0.2:2376?tlsverify=1&cert-path=/certs/b
//
// `--tlsverify` and `--cert-path` stay the defaults of every entry that does not say otherwise. Any entry may
// name its rollout stage, `?stage=N` (docs/rollouts.md; default 1). The entry without its query is the
// engine's name (`host`) in records, filters and /readyz; an `ssh://` entry's `?socket=` stays in its name
// (docs/ssh-hosts.md). Parsing only: this module is imported for --help, so it loads nothing of the runtime.
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { isGoBool, splitCommaOrSpace, type Parser } from '../../../core/declarations.js';
import { SshAddressError, parseSshAddress, redactSshEntry } from './ssh/address.js';

/** Where a raw value came from (the option parser's context). */
type ParseContext = Parameters<Parser<unknown>>[1];

/** One engine to connect to. */
export interface EngineSpec {
  /** The entry as written without its query (an ssh:// entry keeps its socket=): the engine's name in records, filters and /readyz. */
  readonly host: string;
  /** From the entry's `tlsverify=`, else `--tlsverify`. */
  readonly tlsVerify: boolean;
  /** From the entry's `cert-path=`, else `--cert-path`; undefined for none. */
  readonly certPath: string | undefined;
  /** From the entry's `stage=`, else 1: the host's rollout stage (docs/rollouts.md). */
  readonly stage: number;
}

/** What an entry may set for itself; undefined: the flag's value. */
export interface HostEntry {
  readonly host: string;
  readonly tlsVerify?: boolean;
  readonly certPath?: string;
  /** The rollout stage (docs/rollouts.md); undefined: stage 1. */
  readonly stage?: number;
}

/** The highest stage an entry may name: stages order hosts, a handful is the use. */
export const MAX_STAGE = 1000;

export const DEFAULT_DOCKER_HOST = 'unix:///var/run/docker.sock';
const SCHEMES = /^(unix|npipe|tcp|http|https|ssh):\/\/(.*)$/;
export const HOST_ACCEPTED =
  'expected unix://, npipe://, tcp://, http://, https:// or ssh:// addresses, separated by commas or spaces; ' +
  'a tcp:// or https:// address may end with ?tlsverify=<bool>&cert-path=<dir>, an ssh://[user@]host[:port] one with ' +
  '?socket=<path>, any address with ?stage=<1-1000>';

function invalid(entry: string, why: string): Error {
  return new Error(`"${redactSshEntry(entry)}": ${why}; ${HOST_ACCEPTED}`);
}

/**
 * An `ssh://` entry (docs/ssh-hosts.md). Its name keeps `?socket=` when one is given: two engines of one
 * machine (Docker's socket and Podman's) are two hosts, told apart by their socket.
 */
function sshEntry(entry: string, rest: string, query: string | undefined): HostEntry {
  let socket: string | undefined;
  let stage: number | undefined;
  for (const [key, value] of new URLSearchParams(query ?? '')) {
    if (key === 'stage') {
      if (stage !== undefined) throw invalid(entry, 'stage is given twice');
      stage = parseStage(entry, value);
      continue;
    }
    if (key !== 'socket') throw invalid(entry, `unknown setting "${key}" (socket and stage are known for ssh://)`);
    socket = value;
  }
  try {
    parseSshAddress(rest, socket);
  } catch (err) {
    if (err instanceof SshAddressError) throw invalid(entry, err.message);
    throw err;
  }
  return { host: socket === undefined ? `ssh://${rest}` : `ssh://${rest}?socket=${socket}`, ...(stage === undefined ? {} : { stage }) };
}

/** A `host:port` (or `[v6]:port`) that the connection can use: a host and, when given, a port 1-65535. */
function checkAddress(entry: string, rest: string): void {
  let url: URL;
  try {
    url = new URL(`http://${rest}`);
  } catch {
    throw invalid(entry, 'not a host:port address');
  }
  if (url.hostname === '') throw invalid(entry, 'no host name');
  if (url.pathname !== '/' || url.username || url.password || url.hash) throw invalid(entry, 'only host:port may follow the scheme');
  if (url.port !== '' && Number(url.port) < 1) throw invalid(entry, 'port out of range');
}

function parseStage(entry: string, value: string): number {
  if (!/^[0-9]{1,4}$/.test(value) || Number(value) < 1 || Number(value) > MAX_STAGE) {
    throw invalid(entry, `stage=${value} is not a whole number from 1 to ${MAX_STAGE}`);
  }
  return Number(value);
}

function queryEntry(entry: string, host: string, query: string, ctx: ParseContext | undefined, tls: boolean): HostEntry {
  let tlsVerify: boolean | undefined;
  let certPath: string | undefined;
  let stage: number | undefined;
  for (const [key, value] of new URLSearchParams(query)) {
    if (key === 'stage') {
      if (stage !== undefined) throw invalid(entry, 'stage is given twice');
      stage = parseStage(entry, value);
    } else if (!tls && (key === 'tlsverify' || key === 'cert-path')) {
      throw invalid(entry, `TLS settings apply to tcp:// and https:// engines, not ${host.slice(0, host.indexOf(':'))}://`);
    } else if (key === 'tlsverify') {
      if (!isGoBool(value)) throw invalid(entry, `tlsverify=${value} is not a boolean`);
      tlsVerify = /^(1|t|true)$/i.test(value);
    } else if (key === 'cert-path') {
      if (value.trim() === '') throw invalid(entry, 'cert-path is empty');
      certPath = ctx && !isAbsolute(value) ? resolvePath(ctx.cwd, value) : value;
    } else {
      throw invalid(entry, `unknown setting "${key}" (tlsverify, cert-path and stage are known)`);
    }
  }
  // A certificate directory for one engine means TLS to it; refusing the contradiction beats ignoring it.
  if (certPath !== undefined && tlsVerify === false) throw invalid(entry, 'cert-path needs TLS, but tlsverify is false');
  return {
    host,
    ...(certPath === undefined ? {} : { certPath, tlsVerify: true }),
    ...(tlsVerify === undefined ? {} : { tlsVerify }),
    ...(stage === undefined ? {} : { stage }),
  };
}

/** One entry of the list, checked. */
export function parseHostEntry(entry: string, ctx?: ParseContext): HostEntry {
  const match = SCHEMES.exec(entry);
  if (!match) throw invalid(entry, 'unknown scheme');
  const scheme = match[1] as string;
  const [rest = '', query] = (match[2] as string).split(/\?(.*)/s, 2);
  if (scheme === 'ssh') return sshEntry(entry, rest, query);
  const host = `${scheme}://${rest}`;
  const tls = scheme === 'tcp' || scheme === 'https';
  if (scheme !== 'unix' && scheme !== 'npipe') checkAddress(entry, rest);
  return query === undefined ? { host } : queryEntry(entry, host, query, ctx, tls);
}

/** An entry written back, its cert-path absolute: what the option holds (and /v1/config shows). */
export function formatHostEntry(entry: HostEntry): string {
  const settings = [
    ...(entry.tlsVerify === undefined ? [] : [`tlsverify=${entry.tlsVerify}`]),
    ...(entry.certPath === undefined ? [] : [`cert-path=${entry.certPath}`]),
    ...(entry.stage === undefined ? [] : [`stage=${entry.stage}`]),
  ];
  // An ssh:// entry's name may hold its own query (`?socket=`): the settings then follow it.
  return settings.length === 0 ? entry.host : `${entry.host}${entry.host.includes('?') ? '&' : '?'}${settings.join('&')}`;
}

/** The option's parser: the whole list, each entry checked, none twice. */
export function parseHostList(raw: string, ctx?: ParseContext): HostEntry[] {
  const entries = splitCommaOrSpace(raw).map((entry) => parseHostEntry(entry, ctx));
  if (entries.length === 0) throw new Error(`no engine given; ${HOST_ACCEPTED}`);
  const seen = new Set<string>();
  for (const { host } of entries) {
    if (seen.has(host)) throw new Error(`"${host}" is listed twice: each engine once`);
    seen.add(host);
  }
  return entries;
}

/**
 * The engines of the option's value (a list from the command line, or what an embedder passed: one host or
 * several), with `--tlsverify` and `--cert-path` filling what an entry leaves unsaid.
 */
export function engineSpecs(
  hosts: string | readonly string[],
  defaults: { readonly tlsVerify: boolean; readonly certPath: string | undefined },
): EngineSpec[] {
  const list = typeof hosts === 'string' ? [hosts] : hosts;
  const entries = parseHostList(list.length === 0 ? DEFAULT_DOCKER_HOST : list.join(','));
  return entries.map((entry) => ({
    host: entry.host,
    tlsVerify: entry.tlsVerify ?? defaults.tlsVerify,
    certPath: entry.certPath ?? defaults.certPath,
    stage: entry.stage ?? 1,
  }));
}
