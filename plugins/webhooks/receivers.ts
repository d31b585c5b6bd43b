// Receiver specs (docs/webhooks.md#configuration): `NAME=KIND[,token=VALUE_OR_FILE][,secret=VALUE_OR_FILE]
// [,action=check|update]`, repeated on the command line, separated by `;` in TIDEWATCH_WEBHOOKS, a list in the
// config file. A token or secret naming an existing file is that file's content, trimmed. Messages name the
// receiver and the key at fault, never a value: the spec holds secrets.
import { resolve as resolvePath } from 'node:path';
import type { Parser } from '../../core/index.js';
import { webhookErrors } from './errors.js';
// Not an ES import of node:fs (docs/performance.md#memory): its namespace loads node:fs/promises and readline.
const { readFileSync, statSync } = process.getBuiltinModule('node:fs');

export const KINDS = ['distribution', 'dockerhub', 'github', 'harbor', 'quay', 'generic'] as const;
export type ReceiverKind = (typeof KINDS)[number];
export type ReceiverAction = 'check' | 'update';

export interface WebhookReceiver {
  /** The path segment of `/v1/hooks/{name}` and the `webhook:<name>` trigger. */
  readonly name: string;
  readonly kind: ReceiverKind;
  /** Bearer token (header or path segment); empty when the receiver uses only a secret. */
  readonly token: string;
  /** HMAC-SHA256 key of `X-Hub-Signature-256`; empty when the receiver uses only a token. */
  readonly secret: string;
  readonly action: ReceiverAction;
}

const NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const ACCEPTED = 'expected NAME=KIND[,token=VALUE_OR_FILE][,secret=VALUE_OR_FILE][,action=check|update]';

/** A secret value, or the trimmed content of the file it names. */
function secretValue(raw: string, cwd: string, receiver: string, key: string): string {
  const value = raw.trim();
  if (value === '') throw webhookErrors.spec(`receiver ${JSON.stringify(receiver)}: ${key} is empty; ${ACCEPTED}`);
  let isFile = false;
  const path = resolvePath(cwd, value);
  try {
    isFile = statSync(path, { throwIfNoEntry: false })?.isFile() === true;
  } catch {
    isFile = false; // not a usable path: the value is the secret itself
  }
  if (!isFile) return value;
  let content: string;
  try {
    content = readFileSync(path, 'utf8').trim();
  } catch (err) {
    throw webhookErrors.spec(`receiver ${JSON.stringify(receiver)}: cannot read the file given as ${key} (${(err as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  if (content === '') throw webhookErrors.spec(`receiver ${JSON.stringify(receiver)}: the file given as ${key} is empty`);
  return content;
}

function parseOne(text: string, cwd: string): WebhookReceiver {
  const [head = '', ...pairs] = text.split(',');
  const eq = head.indexOf('=');
  const name = (eq === -1 ? head : head.slice(0, eq)).trim().toLowerCase();
  if (!NAME.test(name)) {
    throw webhookErrors.spec(`a receiver name must be 1-63 of a-z 0-9 _ - starting with a letter or digit; ${ACCEPTED}`);
  }
  const kind = (eq === -1 ? '' : head.slice(eq + 1)).trim().toLowerCase();
  if (!(KINDS as readonly string[]).includes(kind)) {
    throw webhookErrors.spec(`receiver ${JSON.stringify(name)}: unknown kind; expected one of ${KINDS.join(', ')}`);
  }
  let token = '';
  let secret = '';
  let action: ReceiverAction = 'check';
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    const key = (at === -1 ? pair : pair.slice(0, at)).trim().toLowerCase();
    const value = at === -1 ? '' : pair.slice(at + 1);
    if (key === 'token') token = secretValue(value, cwd, name, 'token');
    else if (key === 'secret') secret = secretValue(value, cwd, name, 'secret');
    else if (key === 'action') {
      const a = value.trim().toLowerCase();
      if (a !== 'check' && a !== 'update') throw webhookErrors.spec(`receiver ${JSON.stringify(name)}: action must be check or update`);
      action = a;
    } else {
      // The key only: a misplaced comma could have made part of a secret look like a key.
      throw webhookErrors.spec(`receiver ${JSON.stringify(name)}: unknown key ${JSON.stringify(key.slice(0, 20))}; ${ACCEPTED}`);
    }
  }
  if (token === '' && secret === '') {
    throw webhookErrors.spec(`receiver ${JSON.stringify(name)} needs a token or a secret: every webhook is authenticated`);
  }
  return Object.freeze({ name, kind: kind as ReceiverKind, token, secret, action });
}

/** The whole option value: specs separated by `;` (repeated flags and config-file lists are joined with it). */
export const parseReceivers: Parser<WebhookReceiver[]> = (raw, ctx) => {
  const receivers = raw
    .split(/[;\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => parseOne(s, ctx.cwd));
  const seen = new Set<string>();
  for (const r of receivers) {
    if (seen.has(r.name)) throw webhookErrors.spec(`receiver ${JSON.stringify(r.name)} is configured twice`);
    seen.add(r.name);
  }
  return receivers;
};

/** The JSON schema of the typed value (embedders pass receivers as objects). */
export const receiversSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['name', 'kind', 'token', 'secret', 'action'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', pattern: NAME.source },
      kind: { enum: [...KINDS] },
      token: { type: 'string' },
      secret: { type: 'string' },
      action: { enum: ['check', 'update'] },
    },
  },
} as const;
