// bin/tidewatch.js runs an agent without V8's JIT (docs/fleet.md#footprint): `tidewatch agent` re-executes
// itself once with --jitless before loading anything, in the same process (its id, standard streams and
// environment kept); the service never does; a --jitless or --no-jitless given to node wins.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { BIN, REPO_ROOT } from '../helpers/service.js';

interface Seen {
  /** The process id the spawn returned. */
  readonly spawned: number | undefined;
  readonly code: number | null;
  readonly stdout: string;
  /** What the probe printed at exit: the process id, V8's view of --jitless, node's flags. */
  readonly probe: { pid: number; jitless: boolean; execArgv: string[] } | undefined;
}

/** Runs the binary with a probe loaded before it (kept across the re-execution: it is one of node's flags). */
async function runBin(t: Test, nodeFlags: string[], args: string[], env: NodeJS.ProcessEnv = {}): Promise<Seen> {
  const dir = mkdtempSync(join(tmpdir(), 'tw-agent-jitless-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const probe = join(dir, 'probe.mjs');
  // WebAssembly is off under --jitless: its absence is V8's own word that the flag took effect.
  writeFileSync(
    probe,
    `process.on('exit', () => process.stderr.write('probe=' + JSON.stringify({ pid: process.pid, jitless: typeof WebAssembly === 'undefined', execArgv: process.execArgv }) + '\\n'));`,
  );
  const child = spawn(process.execPath, [...nodeFlags, '--import', probe, BIN, ...args], { cwd: REPO_ROOT, env: { PATH: process.env['PATH'], ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  const line = /^probe=(.*)$/m.exec(stderr)?.[1];
  return { spawned: child.pid, code, stdout, probe: line === undefined ? undefined : (JSON.parse(line) as Seen['probe']) };
}

t.test('an agent runs with --jitless, in the process that was started', async (t) => {
  // `agent --version`: through the agent's entry to the service's, then exit 0, all in the re-executed process.
  const seen = await runBin(t, [], ['agent', '--version']);
  t.equal(seen.code, 0);
  t.match(seen.stdout, /^tidewatch \d+\.\d+\.\d+/, 'it ran to the end');
  t.equal(seen.probe?.jitless, true, 'V8 runs without its JIT (no WebAssembly)');
  t.equal(seen.probe?.execArgv.filter((f) => f === '--jitless').length, 1, `--jitless once: ${seen.probe?.execArgv.join(' ')}`);
  t.equal(seen.probe?.pid, seen.spawned, 'the same process id: re-executed in place, not a child');
  for (const flag of ['--single-threaded', '--v8-pool-size=1']) t.ok(seen.probe?.execArgv.includes(flag), `${flag} on its command line`);
});

t.test('an agent refusing its options exits 2 from the re-executed process', async (t) => {
  const seen = await runBin(t, [], ['agent', '--data-dir', '/tmp']);
  t.equal(seen.code, 2);
  t.equal(seen.probe?.jitless, true);
});

t.test('the service keeps the JIT', async (t) => {
  const seen = await runBin(t, [], ['--version']);
  t.equal(seen.code, 0);
  t.equal(seen.probe?.jitless, false, 'WebAssembly is there');
  t.notOk(seen.probe?.execArgv.includes('--jitless'));
});

t.test('--no-jitless given to node wins', async (t) => {
  // (V8 flags such as this one are not allowed in NODE_OPTIONS: node's command line is the one place.)
  const seen = await runBin(t, ['--no-jitless'], ['agent', '--version']);
  t.equal(seen.code, 0);
  t.equal(seen.probe?.jitless, false, 'WebAssembly is there');
  t.notOk(seen.probe?.execArgv.includes('--jitless'));
});

t.test('node flags in NODE_OPTIONS reach the re-executed agent once', async (t) => {
  const seen = await runBin(t, [], ['agent', '--version'], { NODE_OPTIONS: '--max-semi-space-size=2' });
  t.equal(seen.code, 0);
  t.equal(seen.probe?.jitless, true);
  t.notOk(seen.probe?.execArgv.includes('--max-semi-space-size=2'), 'not copied onto the command line');
});
