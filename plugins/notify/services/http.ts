// The one way a notification service talks HTTP: undici, a per-request timeout joined to the caller's
// AbortSignal, and errors that never carry a credential (docs/notifications.md#services).
import { Agent, request, type Dispatcher } from 'undici';
import { createError, errorMessage } from '../../../core/index.js';
import type { NotificationSender, NotificationService } from '../service.js';

/** A delivery that failed: `<service>: <what happened>`, with every known secret replaced. */
export const notificationFailed = createError(
  'TW_ERR_NOTIFICATION_SEND',
  (service: string, detail: string) => `${service}: ${detail}`,
  502,
);

/** How long one request may take unless a factory says otherwise (shoutrrr's own default). */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** Replaces each secret (and its percent-encoded form) in `text` with `REDACTED`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of [...secrets].filter((s) => s.length >= 3).sort((a, b) => b.length - a.length)) {
    for (const form of new Set([s, encodeURIComponent(s)])) out = out.split(form).join('REDACTED');
  }
  return out;
}

export interface HttpCall {
  readonly method?: string;
  readonly url: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly timeoutMs?: number;
  /** Skips certificate verification (a URL's `insecureskipverify=yes`-style parameter). */
  readonly insecure?: boolean;
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

let insecureAgent: Dispatcher | undefined;

/**
 * Sends one request and reads the answer. Never throws with the URL in the message: a transport failure
 * says only what failed (`ECONNREFUSED`, a timeout), scrubbed of `secrets`.
 */
export async function httpCall(service: string, call: HttpCall, signal: AbortSignal, secrets: readonly string[]): Promise<HttpAnswer> {
  const timeoutMs = call.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const joined = AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
  const host = safeHost(call.url);
  // Cancelled before it starts: no connection is even attempted.
  if (signal.aborted) throw notificationFailed(service, `request to ${host} failed: cancelled`);
  try {
    const res = await request(call.url, {
      method: (call.method ?? 'POST') as Dispatcher.HttpMethod,
      headers: { ...call.headers },
      body: call.body,
      signal: joined,
      ...(call.insecure ? { dispatcher: (insecureAgent ??= new Agent({ connect: { rejectUnauthorized: false } })) } : {}),
    });
    return { status: res.statusCode, body: await boundedText(res.body) };
  } catch (err) {
    const why = signal.aborted ? 'cancelled' : joined.aborted ? `timed out after ${timeoutMs} ms` : transportReason(err);
    throw notificationFailed(service, scrub(`request to ${host} failed: ${why}`, secrets));
  }
}

/** How much of an answer is read: enough for any API's verdict; a server cannot make us buffer more. */
export const ANSWER_LIMIT_BYTES = 64 * 1024;

/** The answer's first ANSWER_LIMIT_BYTES as text; the rest is not read (the connection is dropped). */
async function boundedText(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    chunks.push(buf);
    size += buf.length;
    if (size >= ANSWER_LIMIT_BYTES) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, ANSWER_LIMIT_BYTES).toString('utf8');
}

/** Rejects unless the status is 2xx (or one of `ok`); the message holds the status and a short excerpt of the answer. */
export function expectStatus(service: string, answer: HttpAnswer, secrets: readonly string[], ok?: readonly number[]): void {
  const good = ok ? ok.includes(answer.status) : answer.status >= 200 && answer.status < 300;
  if (good) return;
  throw notificationFailed(service, scrub(`HTTP ${answer.status}${excerpt(answer.body)}`, secrets));
}

/** ` (first 200 characters of the answer)`, or nothing for an empty one. */
export function excerpt(body: string): string {
  const text = body.trim().replace(/\s+/g, ' ');
  if (text === '') return '';
  return `: ${text.length > 200 ? `${text.slice(0, 200)}…` : text}`;
}

/** Parses a JSON answer, or undefined. */
export function jsonOf(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

function safeHost(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the server';
  }
}

function transportReason(err: unknown): string {
  const code = (err as { code?: unknown }).code;
  const cause = (err as { cause?: { code?: unknown } }).cause?.code;
  if (typeof cause === 'string') return cause;
  if (typeof code === 'string' && code !== 'UND_ERR') return code;
  // undici's messages name the host at most; the caller scrubs secrets anyway.
  return errorMessage(err);
}

/** The origin `baseUrl` stands for, without a trailing slash (a factory's test-only target). */
export function trimBase(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

export interface JsonPost {
  readonly url: string;
  readonly payload: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly insecure?: boolean;
  /** The statuses that mean delivered; any 2xx when unset. */
  readonly ok?: readonly number[];
}

/**
 * POSTs a JSON payload through httpCall and rejects unless the status is one of `ok` (2xx by default);
 * resolves to the answer so a service can read an error code inside a 200 (Lark, WeCom, Bark do).
 */
export async function postJson(service: string, post: JsonPost, signal: AbortSignal, secrets: readonly string[]): Promise<HttpAnswer> {
  const answer = await httpCall(
    service,
    {
      url: post.url,
      headers: { 'Content-Type': 'application/json', ...post.headers },
      body: JSON.stringify(post.payload),
      timeoutMs: post.timeoutMs,
      ...(post.insecure ? { insecure: true } : {}),
    },
    signal,
    secrets,
  );
  expectStatus(service, answer, secrets, post.ok);
  return answer;
}

/** `user:password` as a Basic authorization header value. */
export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** What every HTTP service factory takes: a test-only origin (code only, never a URL part) and a timeout. */
export interface HttpServiceOptions {
  /** Test only: the origin requests go to instead of the service's real one (or the URL's host). */
  readonly baseUrl?: string;
  readonly timeoutMs?: number;
}

/** What a service's parse gets: the test origin (undefined in production) and the timeout. */
export interface HttpServiceSettings {
  readonly base: string | undefined;
  readonly timeoutMs: number;
}

/** A NotificationService for `schemes` whose parse reads each URL with the factory's settings. */
export function httpService(
  schemes: readonly string[],
  options: HttpServiceOptions,
  parse: (url: URL, settings: HttpServiceSettings) => NotificationSender,
): NotificationService {
  const settings: HttpServiceSettings = {
    base: options.baseUrl === undefined ? undefined : trimBase(options.baseUrl),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  };
  return { schemes, parse: (url) => parse(url, settings) };
}
