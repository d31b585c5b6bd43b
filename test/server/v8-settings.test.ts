// bin/tidewatch.js sets V8's settings for an idle service itself, whichever way it is started
// (docs/performance.md#v8-settings): started as plain `node bin/tidewatch.js`, the young generation keeps
// its first size; a --max-semi-space-size given to node (the image's) wins.
import { execFile } from 'node:child_process';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { BIN, REPO_ROOT } from '../helpers/service.js';

const run = promisify(execFile);

/** The young generation's size once enough short-lived garbage went through it, the binary having run `--help`. */
async function youngGenerationMb(t: Test, nodeFlags: string[]): Promise<number> {
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
