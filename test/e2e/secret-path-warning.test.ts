// A token path that names no file (docs/troubleshooting.md#a-secret-file-that-is-not-there): the README's
// `--http-api-token /run/secrets/token` without the file mounted makes the path itself the token, so the
// user's `curl` with the token they wrote in the file gets 401. The real binary warns once at start, naming
// the option and never the value; the same for an empty secret file; nothing for a secret file that is there.
// No engine is needed for any of it: --host names a socket where nothing is.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { call, startService } from '../helpers/service.js';

const WRITTEN = 'secret-path-warning-token-0123456789';

t.test('a secret path with no file, or an empty file: one start-up warning naming the option, never the value', { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tw-secret-path-'));
  const noEngine = mkdtempSync(join(tmpdir(), 'tw-no-engine-'));
  t.teardown(() => {
    rmSync(dir, { recursive: true, force: true });
    rmSync(noEngine, { recursive: true, force: true });
  });
  const missing = join(dir, 'not-mounted', 'token');
  const empty = join(dir, 'git-token');
  writeFileSync(empty, '\n');
  const service = await startService([
    '--host', `unix://${join(noEngine, 'docker.sock')}`,
    '--http-api-endpoints', 'config',
    '--http-api-token', missing,
  ], { TIDEWATCH_GIT_TOKEN: empty });
  t.teardown(() => service.stop());

  const warnings = service.logs.filter((l) => l['level'] === 40).map((l) => String(l['msg']));
  const token = warnings.filter((w) => w.includes('--http-api-token'));
  t.equal(token.length, 1, 'one warning for the token');
  t.match(token[0], /^--http-api-token \(TIDEWATCH_HTTP_API_TOKEN\) is an absolute path but no file is there/);
  const git = warnings.filter((w) => w.includes('--git-token'));
  t.equal(git.length, 1, 'one warning for the empty Git token file');
  t.match(git[0], /secret file given for --git-token \(TIDEWATCH_GIT_TOKEN\) is empty/);
  const output = JSON.stringify(service.logs) + service.stderr.join('');
  t.notMatch(output, 'not-mounted', 'the value is never logged');
  t.notMatch(output, dir, 'nor the empty file\'s path');
  t.match(output, noEngine, 'while what is not a secret, the engine\'s address, is logged');

  // What the user meets without the warning: the token they put in the file is refused, the path is accepted.
  t.equal((await call(`${service.url}/v1/config`, { token: WRITTEN })).status, 401, 'the token the user wrote is refused');
  t.equal((await call(`${service.url}/v1/config`, { token: missing })).status, 200, 'the path itself is the token, as the spec says');
});

t.test('a secret file that is there: no warning', { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'tw-secret-path-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'token');
  writeFileSync(file, `${WRITTEN}\n`);
  const service = await startService(['--host', `unix://${join(dir, 'docker.sock')}`, '--http-api-endpoints', 'config', '--http-api-token', file]);
  t.teardown(() => service.stop());
  t.same(service.logs.filter((l) => l['level'] === 40 && /secret|absolute path/.test(String(l['msg']))), [], 'no secret warning');
  t.equal((await call(`${service.url}/v1/config`, { token: WRITTEN })).status, 200, 'the file\'s content is the token');
});
