// Go's own text/template, for comparisons with Tidewatch's (docs/notifications.md, "The parity test"): a
// tiny program (test/plugins/notify/go-template) built once per process with Debian's golang-go, offline
// (no toolchain or module download). With CI=true a missing Go fails instead of skipping.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CorpusCase } from '../plugins/notify/template-corpus.js';
import { REPO_ROOT } from './service.js';

export interface GoResult {
  readonly name: string;
  readonly output?: string;
  readonly error?: string;
}

const goEnv = (cache: string): NodeJS.ProcessEnv => ({
  ...process.env,
  GOTOOLCHAIN: 'local',
  GO111MODULE: 'off',
  GOPATH: '/usr/share/gocode',
  GOFLAGS: '',
  GOPROXY: 'off',
  GOCACHE: cache,
  TZ: 'UTC',
});

/** Debian's golang.org/x/text: the program's Title is x/text's cases.Title, as Watchtower's is. */
const X_TEXT = '/usr/share/gocode/src/golang.org/x/text/cases';

export function haveGo(): boolean {
  return spawnSync('go', ['version']).status === 0 && existsSync(X_TEXT);
}

/** A build cache kept across runs (under the OS temp dir): the build then takes a second, not several. */
const GO_CACHE = join(tmpdir(), 'tidewatch-go-cache');

let built: { bin: string; dir: string } | undefined;

/** Renders every case with Go; the program is built on first use and removed when the process exits. */
export function renderWithGo(cases: readonly CorpusCase[]): GoResult[] {
  if (!built) {
    const dir = mkdtempSync(join(tmpdir(), 'tw-go-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const bin = join(dir, 'render');
    execFileSync('go', ['build', '-o', bin, '.'], {
      cwd: join(REPO_ROOT, 'test/plugins/notify/go-template'),
      env: goEnv(GO_CACHE),
      stdio: 'pipe',
    });
    built = { bin, dir };
  }
  const out = execFileSync(built.bin, [], { input: JSON.stringify({ cases }), env: goEnv(GO_CACHE), maxBuffer: 64 << 20 });
  return JSON.parse(out.toString('utf8')) as GoResult[];
}
