// Extracts what a reader would type from README.md and docs/*.md (test/docs/examples.test.ts): every
// Tidewatch command line (`tidewatch …`, `npx tidewatch …`, `node bin/tidewatch.js …`, `docker run … IMAGE …`
// of a Tidewatch image), every Compose service running Tidewatch (its `command:` and `environment:`), and
// every notification URL written out in full. A block a reader cannot run as written (a fragment, a plugin
// of their own) is marked in the page itself with `<!-- check-config: skip (why) -->` on the line before it.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

export interface Example {
  /** `docs/x.md:12`: where a reader finds it. */
  readonly where: string;
  readonly argv: string[];
  readonly env: Record<string, string>;
}

interface Block {
  readonly file: string;
  readonly line: number;
  readonly lang: string;
  readonly text: string;
  readonly skip: boolean;
}

export function markdownFiles(root: string): string[] {
  return ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
}

export function fencedBlocks(root: string, file: string): Block[] {
  const lines = readFileSync(join(root, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(\w*)/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^\s*```/.test(lines[i]!); i++) body.push(lines[i]!.slice(open[1]!.length));
    const before = lines.slice(Math.max(0, start - 2), start).join('\n');
    blocks.push({ file, line: start + 1, lang: open[2]!, text: body.join('\n'), skip: /<!--\s*check-config:\s*skip/.test(before) });
  }
  return blocks;
}

/** A stand-in for `$TOKEN`, `${TOKEN}` and `$(cat …)`: what the reader's shell would put there. */
export const PLACEHOLDER = 'example-value-0123456789abcdef';

/** Shell words of one logical line, split into commands at `&&`, `||`, `;` and `|`; comments dropped. */
export function shellCommands(line: string): string[][] {
  const commands: string[][] = [[]];
  let word: string | undefined;
  const end = () => {
    if (word !== undefined) commands[commands.length - 1]!.push(word);
    word = undefined;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const close = line.indexOf("'", i + 1);
      word = (word ?? '') + line.slice(i + 1, close === -1 ? line.length : close);
      i = close === -1 ? line.length : close;
    } else if (c === '"') {
      let j = i + 1;
      let text = '';
      for (; j < line.length && line[j] !== '"'; j++) text += line[j] === '\\' && j + 1 < line.length ? line[++j] : line[j];
      word = (word ?? '') + substitute(text);
      i = j;
    } else if (c === '$') {
      const m = /^\$(\{[^}]*\}|\([^)]*\)|\w+)/.exec(line.slice(i));
      word = (word ?? '') + (m ? PLACEHOLDER : '$');
      i += m ? m[0].length - 1 : 0;
    } else if (/\s/.test(c)) end();
    else if (c === '#' && word === undefined) break;
    else if (c === '&' || c === '|' || c === ';') {
      end();
      if (line[i + 1] === c) i++;
      commands.push([]);
    } else if (c === '\\' && i + 1 < line.length) word = (word ?? '') + line[++i];
    else word = (word ?? '') + c;
  }
  end();
  return commands.filter((c) => c.length > 0);
}

/** `${X:-default}` is its default (what Compose and the shell give an unset X); any other reference, the stand-in. */
function substitute(text: string): string {
  return text.replace(/\$(\{[^}]*\}|\([^)]*\)|\w+)/g, (ref) => /^\$\{\w+:?-(.*)\}$/.exec(ref)?.[1] ?? PLACEHOLDER);
}

/** `docker run` options that take a value (the rest are switches). */
const DOCKER_VALUE_OPTIONS = new Set([
  '-e', '--env', '-v', '--volume', '--name', '-p', '--publish', '--restart', '-u', '--user', '--group-add', '--network', '--net',
  '--tmpfs', '--security-opt', '--cap-drop', '--cap-add', '--mount', '--label', '-l', '--env-file', '--stop-timeout', '--log-opt',
  '--add-host', '-w', '--workdir', '--entrypoint', '--memory', '-m', '--cpus', '--pull', '--platform', '-h', '--hostname',
  '--stop-signal', '--health-cmd', '--dns', '--ulimit', '--pid', '--ipc', '--userns', '--device',
]);

/** The Tidewatch arguments and variables of one command, or undefined when it runs something else. */
export function tidewatchInvocation(words: string[]): { argv: string[]; env: Record<string, string> } | undefined {
  const env: Record<string, string> = {};
  let w = [...words];
  while (w.length > 0 && /^[A-Z_][A-Z0-9_]*=/.test(w[0]!)) {
    const [k, ...v] = w.shift()!.split('=');
    env[k!] = v.join('=');
  }
  if (w[0] === 'sudo') w.shift();
  if (w[0] === 'npx' && w[1] === 'tidewatch') return { argv: w.slice(2), env };
  if (w[0] === 'tidewatch') return { argv: w.slice(1), env };
  if (w[0] === 'node' && /(^|\/)bin\/tidewatch\.js$/.test(w[1] ?? '')) return { argv: w.slice(2), env };
  if (w[0] === 'docker' && (w[1] === 'run' || (w[1] === 'container' && w[2] === 'run'))) {
    w = w.slice(w[1] === 'run' ? 2 : 3);
    while (w.length > 0 && w[0]!.startsWith('-')) {
      const opt = w.shift()!;
      const [name, inline] = opt.includes('=') ? [opt.slice(0, opt.indexOf('=')), opt.slice(opt.indexOf('=') + 1)] : [opt, undefined];
      const value = inline ?? (DOCKER_VALUE_OPTIONS.has(name!) ? w.shift() : undefined);
      if ((name === '-e' || name === '--env') && value?.includes('=')) env[value.slice(0, value.indexOf('='))] = value.slice(value.indexOf('=') + 1);
    }
    const image = w.shift() ?? '';
    return /(^|\/)tidewatch(:|@|$)/.test(image) ? { argv: w, env } : undefined;
  }
  return undefined;
}

const SHELL_LANGS = new Set(['', 'sh', 'bash', 'shell', 'console']);

/** Every command line of the pages that runs Tidewatch. */
export function commandExamples(root: string): Example[] {
  const out: Example[] = [];
  for (const file of markdownFiles(root)) {
    for (const block of fencedBlocks(root, file)) {
      if (block.skip || !SHELL_LANGS.has(block.lang)) continue;
      const lines = block.text.split('\n');
      for (let i = 0; i < lines.length; i++) {
        const first = i;
        let logical = lines[i]!.replace(/^\$ /, '');
        while (/\\\s*$/.test(logical) && i + 1 < lines.length) logical = logical.replace(/\\\s*$/, ' ') + lines[++i];
        for (const words of shellCommands(logical)) {
          const found = tidewatchInvocation(words);
          if (found) out.push({ where: `${file}:${block.line + 1 + first}`, ...found });
        }
      }
    }
  }
  return out;
}

/** Compose services running Tidewatch (or Watchtower's name for it): `command:` and `environment:`. */
export function composeExamples(root: string): Example[] {
  const out: Example[] = [];
  for (const file of markdownFiles(root)) {
    for (const block of fencedBlocks(root, file)) {
      if (block.skip || !['yaml', 'yml'].includes(block.lang) || !/^services:/m.test(block.text)) continue;
      const doc = parse(block.text) as { services?: Record<string, Record<string, unknown> | null> };
      for (const [name, service] of Object.entries(doc.services ?? {})) {
        const image = String(service?.['image'] ?? '');
        if (!/tidewatch|watchtower/.test(image)) continue;
        out.push({ where: `${file}:${block.line} (service ${name})`, ...composeService(service!) });
      }
    }
  }
  return out;
}

export function composeService(service: Record<string, unknown>): { argv: string[]; env: Record<string, string> } {
  const command = service['command'];
  const argv = Array.isArray(command) ? command.map(String) : typeof command === 'string' ? (shellCommands(command)[0] ?? []) : [];
  const env: Record<string, string> = {};
  const environment = service['environment'];
  if (Array.isArray(environment)) {
    for (const entry of environment.map(String)) if (entry.includes('=')) env[entry.slice(0, entry.indexOf('='))] = substitute(entry.slice(entry.indexOf('=') + 1));
  } else if (environment && typeof environment === 'object') {
    for (const [k, v] of Object.entries(environment)) if (v !== null) env[k] = substitute(String(v));
  }
  return { argv, env };
}

/** Every notification URL written out in full (a URL with a `<placeholder>` or `…` is a pattern, not an example). */
export function notificationUrlExamples(root: string, schemes: readonly string[]): Example[] {
  const out: Example[] = [];
  const own = new Set(schemes.filter((s) => s !== 'mqtt' && s !== 'mqtts'));
  for (const file of markdownFiles(root)) {
    // mqtt:// is also --mqtt-url's (docs/mqtt.md): only the notification page's are notification URLs.
    const accepted = file === 'docs/notifications.md' ? new Set(schemes) : own;
    const lines = readFileSync(join(root, file), 'utf8').split('\n');
    let skipNext = false;
    lines.forEach((line, i) => {
      const skip = skipNext;
      skipNext = /<!--\s*check-config:\s*skip/.test(line);
      if (skip) return;
      for (const m of line.matchAll(/(?<![\w+])([a-z][a-z0-9+]*):\/\/[^\s`"'|]*/g)) {
        const url = m[0].replace(/[.,;:)]+$/, '');
        if (!accepted.has(m[1]!) || /[<>…[\]{}]|\.\.\./.test(url) || url === `${m[1]}://`) continue;
        out.push({ where: `${file}:${i + 1}`, argv: ['--notification-url', url], env: {} });
      }
    });
  }
  return out;
}
