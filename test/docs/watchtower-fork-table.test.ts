// docs/watchtower-fork.md#every-option-and-label-of-the-fork against the built binary's --help, so that the table
// cannot drift: every WATCHTOWER_/DOCKER_ variable --help lists is in a table, every `implemented` row's flag,
// shorthand and variables are in --help as the row says (an internal one, marked hidden, is absent), and every `refused` option is absent from --help and
// exits 2 naming itself. Labels said implemented are in the label reference (docs/interface.md §8).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { REPO_ROOT, runBinary } from '../helpers/service.js';

const STATUSES = new Set(['implemented', 'refused', 'not applicable']);
const LABEL_PREFIX = 'com.centurylinklabs.watchtower.';

interface HelpOption {
  readonly short: string | undefined;
  readonly env: string[];
}

/** `--flag` → its shorthand and variables, from --help's `  -x, --flag <v>` lines and the `[env: A, B; …]` under them. */
function parseHelp(text: string): Map<string, HelpOption> {
  const options = new Map<string, HelpOption>();
  let current: HelpOption | undefined;
  for (const line of text.split('\n')) {
    const flag = /^ {2}(?:-(\w), )?\s*--([a-z0-9-]+)/.exec(line);
    if (flag) {
      current = { short: flag[1], env: [] };
      options.set(`--${flag[2]}`, current);
      continue;
    }
    const env = /\[env: ([^;\]]+)/.exec(line);
    if (env && current) current.env.push(...env[1]!.split(',').map((v) => v.trim()));
  }
  return options;
}

/** The section's tables: each row's cells, by the table's first header cell. */
function tables(markdown: string): Map<string, string[][]> {
  const start = markdown.indexOf('\n## Every option and label of the fork\n');
  const end = markdown.indexOf('\n## ', start + 1);
  const found = new Map<string, string[][]>();
  let rows: string[][] | undefined;
  for (const line of markdown.slice(start, end === -1 ? undefined : end).split('\n')) {
    if (!line.startsWith('|')) {
      rows = undefined;
      continue;
    }
    const cells = line.slice(1, -1).split(' | ').map((c) => c.trim());
    if (!rows) {
      rows = [];
      found.set(cells[0]!, rows);
    } else if (!/^-+$/.test(cells[0]!.replace(/\|/g, ''))) rows.push(cells);
  }
  return found;
}

const ticked = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

t.test('the fork table and --help agree', async (t) => {
  const help = await runBinary(['--help']);
  t.equal(help.code, 0, help.stderr);
  const options = parseHelp(help.stdout);
  t.ok(options.size > 100, 'the options of --help were read');
  const doc = tables(readFileSync(join(REPO_ROOT, 'docs/watchtower-fork.md'), 'utf8'));
  const forkRows = doc.get('fork flag') ?? [];
  const labelRows = doc.get('fork label') ?? [];
  const ownRows = doc.get('variable') ?? [];
  t.ok(forkRows.length > 90 && labelRows.length > 15 && ownRows.length > 0, 'the three tables were read');

  const tabled = new Set<string>();
  const refused: { flag: string; variables: string[] }[] = [];
  for (const [flagCell, variableCell, status, tidewatch] of forkRows) {
    const row = `${flagCell} ${variableCell}`;
    t.ok(STATUSES.has(status!), `${row}: status ${status}`);
    const [flag, short] = ticked(flagCell!);
    const variables = ticked(variableCell!);
    for (const v of variables) {
      t.notOk(tabled.has(v), `${v} is in one row only`);
      tabled.add(v);
    }
    if (status === 'implemented' && tidewatch!.includes('(hidden, internal')) {
      // The fork hides its internal flags too: implemented, yet never offered by --help.
      t.notOk(options.has(flag!), `${row}: an internal flag is not offered by --help`);
    } else if (status === 'implemented') {
      const name = ticked(tidewatch!)[0]!;
      const option = options.get(name);
      if (!t.ok(option, `${row}: --help has ${name}`) || !option) continue;
      if (flag && flag !== '--help') t.equal(name, flag, `${row}: under the fork's own name`);
      if (short) t.equal(`-${option.short}`, short, `${row}: --help gives ${name} the shorthand ${short}`);
      for (const v of variables) t.ok(option.env.includes(v), `${row}: ${name} reads ${v}`);
    } else if (status === 'refused') {
      t.ok(flag, `${row}: a refused row names a flag`);
      t.notOk(options.has(flag!), `${row}: a refused option is not offered by --help`);
      refused.push({ flag: flag!, variables });
    }
  }

  for (const [variableCell, tidewatch] of ownRows) {
    const [variable] = ticked(variableCell!);
    const name = ticked(tidewatch!)[0]!;
    t.notOk(tabled.has(variable!), `${variable}: not also a fork variable`);
    tabled.add(variable!);
    t.ok(options.get(name)?.env.includes(variable!), `--help: ${name} reads ${variable}`);
  }

  const inHelp = [...options.values()].flatMap((o) => o.env).filter((v) => /^(WATCHTOWER|DOCKER)_/.test(v));
  t.same(inHelp.filter((v) => !tabled.has(v)).sort(), [], 'every WATCHTOWER_/DOCKER_ variable of --help is in a table');

  for (const { flag, variables } of refused) {
    const byFlag = await runBinary(['--run-once', flag], {}, 30_000);
    t.equal(byFlag.code, 2, `${flag} exits 2`);
    t.match(byFlag.stderr + byFlag.stdout, flag, `and names ${flag}`);
    for (const variable of variables) {
      const byVariable = await runBinary(['--run-once'], { [variable]: 'true' }, 30_000);
      t.equal(byVariable.code, 2, `${variable}=true exits 2`);
      t.match(byVariable.stderr + byVariable.stdout, flag, `and names ${flag}`);
    }
  }

  const labelReference = readFileSync(join(REPO_ROOT, 'docs/interface.md'), 'utf8').split('\n## 8.')[1]?.split('\n## ')[0] ?? '';
  for (const [labelCell, status, tidewatch] of labelRows) {
    const [label] = ticked(labelCell!);
    t.ok(STATUSES.has(status!), `${label}: status ${status}`);
    if (status !== 'implemented' || !label!.startsWith(LABEL_PREFIX)) continue;
    const key = label!.slice(LABEL_PREFIX.length);
    t.equal(ticked(tidewatch!)[0], `tidewatch.${key}`, `${label}: read as tidewatch.${key} too`);
    t.match(labelReference, `\`${key}\``, `${label}: in the label reference, docs/interface.md §8`);
  }
});
