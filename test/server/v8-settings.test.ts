// bin/tidewatch.js sets V8's settings for an idle service itself, whichever way it is started
// (docs/performance.md#v8-settings): started as plain `node bin/tidewatch.js`, the young generation keeps
// its first size; a --max-semi-space-size given to node (the image's) wins.
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { BIN, REPO_ROOT } from '../helpers/service.js';

const run = promisify(execFile);

/** A module, loaded before the binary, that prints the young generation's size at exit. */
function probeFile(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'tw-v8-settings-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const probe = join(dir, 'probe.mjs');
  // Loaded before the binary; measures at exit, after the binary set its flags and printed its help.
  writeFileSync(
    probe,
    `import v8 from 'node:v8';
     process.on('exit', () => {
       let keep = [];
       for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 2000) keep = []; }
       const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
       process.stderr.write('young=' + young.space_size + '\\n');
     });`,
  );
  return probe;
}

/** The young generation's size once enough short-lived garbage went through it, the binary having run `--help`. */
async function youngGenerationMb(t: Test, nodeFlags: string[]): Promise<number> {
  const probe = probeFile(t);
  const { stderr } = await run(process.execPath, [...nodeFlags, '--import', probe, BIN, '--help'], { cwd: REPO_ROOT, env: { PATH: process.env['PATH'] } });
  return Number(/young=(\d+)/.exec(stderr)?.[1]) / (1024 * 1024);
}

t.test('plain `node bin/tidewatch.js` keeps the young generation at its first size', async (t) => {
  const plain = await youngGenerationMb(t, []);
  t.ok(plain <= 4, `young generation ${plain} MB (V8's default grows it to 16 MB a half, 32 MB)`);
});

t.test('a --max-semi-space-size given to node wins over the binary\'s own setting', async (t) => {
  const given = await youngGenerationMb(t, ['--max-semi-space-size=8']);
  t.ok(given > 4 && given <= 16, `young generation ${given} MB (grew, to 8 MB a half at most)`);
});

t.test('every start path runs the binary with no V8 flag of its own, so bin/tidewatch.js sets them all', async (t) => {
  // The image's entry point, the systemd example's ExecStart, and `npx tidewatch` / a direct exec (the
  // package's `bin` entry, run through its shebang): each must start node on bin/tidewatch.js with
  // nothing in between, or that path would idle differently from the others.
  const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
  const entrypoint = JSON.parse(/^ENTRYPOINT (\[.*\])$/m.exec(dockerfile)?.[1] ?? '[]') as string[];
  t.same(entrypoint, ['node', '/app/bin/tidewatch.js'], 'the image');
  const unit = readFileSync(join(REPO_ROOT, 'examples/tidewatch.service'), 'utf8');
  const execStart = /^ExecStart=(\S+) (\S+)/m.exec(unit);
  t.same([execStart?.[1], execStart?.[2]], ['/usr/bin/node', '/opt/tidewatch/bin/tidewatch.js'], 'the systemd example');
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  t.equal(pkg.bin['tidewatch'], 'bin/tidewatch.js', 'npx tidewatch runs the same file');
  t.equal(readFileSync(join(REPO_ROOT, 'bin/tidewatch.js'), 'utf8').split('\n')[0], '#!/usr/bin/env node', 'through a shebang with no flags');
  // And run as npx runs it (the file itself, through its shebang), the binary's young-generation setting holds.
  const { stderr } = await run(join(REPO_ROOT, 'bin/tidewatch.js'), ['--help'], { cwd: REPO_ROOT, env: { PATH: process.env['PATH'], NODE_OPTIONS: `--import=${probeFile(t)}` } });
  const young = Number(/young=(\d+)/.exec(stderr)?.[1]) / (1024 * 1024);
  t.ok(young > 0 && young <= 4, `young generation ${young} MB when run through the shebang`);
});
