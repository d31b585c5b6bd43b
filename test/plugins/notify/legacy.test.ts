// Watchtower's legacy --notifications kinds become the shoutrrr URLs Watchtower generates from the old
// options, and those URLs parse and deliver with the built-in services.
import t from 'tap';
import { isTidewatchError } from '../../../core/index.js';
import { legacyNotificationUrls, type LegacyNotificationOptions } from '../../../plugins/notify/legacy.js';
import { BUILTIN_SERVICES } from '../../../plugins/notify/services/index.js';
import { parseNotificationUrls } from '../../../plugins/notify/urls.js';
import { CaptureServer, never } from '../../helpers/capture-server.js';

const EMAIL: LegacyNotificationOptions = {
  notifications: ['email'],
  notificationEmailFrom: 'watchtower@x.test',
  notificationEmailTo: 'ops@x.test',
  notificationEmailServer: 'mail.x.test',
  notificationEmailServerPort: 587,
  notificationEmailServerUser: 'mailer',
  notificationEmailServerPassword: 'p@ss/word',
};

t.test('email → smtp:// with Watchtower as sender name, plain auth with a user, STARTTLS unless skipped', async (t) => {
  const [url] = legacyNotificationUrls(EMAIL);
  t.equal(
    url,
    'smtp://mailer:p%40ss%2Fword@mail.x.test:587/?auth=Plain&clienthost=localhost&encryption=Auto&fromaddress=watchtower%40x.test&fromname=Watchtower&subject=&toaddresses=ops%40x.test&usehtml=No&usestarttls=Yes&timeout=10s',
  );
  const [noAuth] = legacyNotificationUrls({ ...EMAIL, notificationEmailServerUser: '', notificationEmailServerPassword: '', notificationEmailServerTlsSkipVerify: true });
  t.equal(
    noAuth,
    'smtp://mail.x.test:587/?auth=None&clienthost=localhost&encryption=None&fromaddress=watchtower%40x.test&fromname=Watchtower&subject=&toaddresses=ops%40x.test&usehtml=No&usestarttls=No&timeout=10s',
  );
  const [sender] = parseNotificationUrls([url!], BUILTIN_SERVICES);
  t.equal(sender!.service, 'smtp');
  t.notMatch(sender!.redacted, /p%40ss|p@ss/);
  t.throws(() => legacyNotificationUrls({ ...EMAIL, notificationEmailTo: '' }), { message: /needs --notification-email-to/ });
});

t.test('slack → slack://hook:…@webhook with the identifier as bot name, the icon and Watchtower\'s colour', async (t) => {
  const [url] = legacyNotificationUrls({
    notifications: ['slack'],
    notificationSlackHookUrl: 'https://hooks.slack.com/services/T01234567/B01234567/abcdefghijklmnopqrstuvwx',
    notificationSlackIdentifier: 'watchtower',
    notificationSlackChannel: '#ignored',
    notificationSlackIconEmoji: ':whale:',
  });
  t.equal(url, 'slack://hook:T01234567-B01234567-abcdefghijklmnopqrstuvwx@webhook?botname=watchtower&color=%23406170&icon=%3Awhale%3A');
  t.equal(parseNotificationUrls([url!], BUILTIN_SERVICES)[0]!.service, 'slack');
  t.throws(
    () => legacyNotificationUrls({ notifications: ['slack'], notificationSlackHookUrl: 'https://hooks.slack.com/services/secretjunk' }),
    { message: /not a Slack webhook URL/ },
  );
});

t.test("slack with a Discord webhook's /slack URL → discord://", async (t) => {
  const [url] = legacyNotificationUrls({
    notifications: ['slack'],
    notificationSlackHookUrl: 'https://discord.com/api/webhooks/693853386302554172/W3dE2OZz4C13_4z/slack',
    notificationSlackIdentifier: 'wt',
    notificationSlackIconUrl: 'https://x.test/i.png',
  });
  t.equal(url, 'discord://W3dE2OZz4C13_4z@693853386302554172?avatar=https%3A%2F%2Fx.test%2Fi.png&color=0x406170&username=wt');
  t.equal(parseNotificationUrls([url!], BUILTIN_SERVICES)[0]!.service, 'discord');
});

t.test('msteams → teams://?host=<hook>', async (t) => {
  const hook = 'https://prod-00.westus.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke?sig=X';
  const [url] = legacyNotificationUrls({ notifications: ['msteams'], notificationMsteamsHook: hook });
  t.equal(url, `teams://?color=%23406170&host=${encodeURIComponent(hook)}`);
  t.equal(parseNotificationUrls([url!], BUILTIN_SERVICES)[0]!.service, 'teams');
  t.throws(() => legacyNotificationUrls({ notifications: ['msteams'], notificationMsteamsHook: 'http://x/y' }), { message: /expected an https URL/ });
});

t.test('gotify → gotify://host/path/token, disabletls for http, and it delivers', async (t) => {
  const server = await new CaptureServer().start();
  t.teardown(() => server.close());
  const [url] = legacyNotificationUrls({
    notifications: ['gotify'],
    notificationGotifyUrl: `http://${server.host}/gotify/`,
    notificationGotifyToken: 'AzyoeNS.D4iJLVa',
  });
  t.equal(url, `gotify://${server.host}/gotify/AzyoeNS.D4iJLVa?disabletls=Yes`);
  await parseNotificationUrls([url!], BUILTIN_SERVICES)[0]!.send({ title: 'T', body: 'b' }, never());
  t.equal(server.requests[0]!.path, '/gotify/message');
  t.equal(server.requests[0]!.query.get('token'), 'AzyoeNS.D4iJLVa');

  const [https] = legacyNotificationUrls({
    notifications: ['gotify'],
    notificationGotifyUrl: 'https://push.x.test',
    notificationGotifyToken: 'AzyoeNS.D4iJLVa',
    notificationGotifyTlsSkipVerify: true,
  });
  t.equal(https, 'gotify://push.x.test/AzyoeNS.D4iJLVa?insecureskipverify=Yes');
  t.throws(() => legacyNotificationUrls({ notifications: ['gotify'], notificationGotifyUrl: 'push.x.test', notificationGotifyToken: 'A' }), {
    message: /must start with http/,
  });
});

t.test('several kinds in order; shoutrrr means the URLs given; an unknown kind is a config error', async (t) => {
  const urls = legacyNotificationUrls({
    ...EMAIL,
    notifications: ['shoutrrr', 'gotify', 'email'],
    notificationGotifyUrl: 'https://g.x.test',
    notificationGotifyToken: 'AzyoeNS.D4iJLVa',
  });
  t.same(urls.map((u) => u.split(':')[0]), ['gotify', 'smtp']);
  t.same(legacyNotificationUrls({ notifications: [] }), []);
  try {
    legacyNotificationUrls({ notifications: ['pigeon'] });
    t.fail('accepted');
  } catch (err) {
    t.ok(isTidewatchError(err) && err.code === 'TW_ERR_CONFIG');
    t.equal((err as { option?: string }).option, 'notifications');
    t.match((err as Error).message, /unknown notification type "pigeon"/);
  }
});
