// `tidewatch notify-upgrade` is the fork's subcommand, not a container name: it writes the notification
// settings as one WATCHTOWER_NOTIFICATION_URL line (mode 0600), names only the file, and removes it on SIGTERM.
import { readdir, readFile, stat } from 'node:fs/promises';
import t from 'tap';
import { REPO_ROOT, runBinary, spawnBinary } from '../helpers/service.js';

const SECRET = 'T00000000/B00000000/notifyupgradesecret0123456';

t.test('notify-upgrade writes the URLs to a file and removes it when stopped', async (t) => {
  const { child, exited } = spawnBinary(['notify-upgrade'], {
    WATCHTOWER_NOTIFICATIONS: 'slack',
    WATCHTOWER_NOTIFICATION_SLACK_HOOK_URL: `https://hooks.slack.com/services/${SECRET}`,
    WATCHTOWER_NOTIFICATION_URL: 'generic://127.0.0.1:9/hook',
  }, 30_000);
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const files = async () => (await readdir(REPO_ROOT)).filter((f) => f.startsWith('watchtower-notif-urls-'));
  const deadline = Date.now() + 20_000;
  while (!stderr.includes('removed in 5 minutes') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const [file] = await files();
  t.ok(file, 'a file was written in the working directory');
  const content = await readFile(`${REPO_ROOT}/${file}`, 'utf8');
  t.match(content, /^WATCHTOWER_NOTIFICATION_URL=generic:\/\/127\.0\.0\.1:9\/hook slack:\/\/\S+\n$/);
  t.match(content, 'T00000000', 'the legacy Slack hook became a slack:// URL');
  t.equal((await stat(`${REPO_ROOT}/${file}`)).mode & 0o777, 0o600);
  t.notMatch(stderr, /notifyupgradesecret/, 'no secret in the output');
  child.kill('SIGTERM');
  const end = await exited;
  t.equal(end.code, 0);
  t.same(await files(), [], 'removed');
  t.notMatch(end.stdout, /update run|discover/, 'no service was started');
});

t.test('notify-upgrade takes no container names', async (t) => {
  const result = await runBinary(['notify-upgrade', 'web'], {}, 30_000);
  t.equal(result.code, 2);
  t.match(result.stderr, /notify-upgrade takes no container names/);
});
