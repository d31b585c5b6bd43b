// smtp:// against a real SMTP server on loopback (smtp-server, nodemailer's own): the mail that arrives
// (envelope, From, To, Subject, body), authentication, STARTTLS and TLS on connect, and a refused login
// whose error never shows the password.
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { SMTPServer, type SMTPServerOptions, type SMTPServerSession } from 'smtp-server';
import { BUILTIN_SERVICES } from '../../../plugins/notify/services/index.js';
import { parseNotificationUrls } from '../../../plugins/notify/urls.js';
import { never, rejectsWithout } from '../../helpers/capture-server.js';

interface Mail {
  readonly from: string;
  readonly to: string[];
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly secure: boolean;
  readonly user: string | undefined;
}

/** Starts an SMTP server on loopback that keeps every message it accepts. */
async function smtpServer(t: Test, options: SMTPServerOptions = {}): Promise<{ port: number; mails: Mail[] }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === 'mailer@x.test' && auth.password === 'p@ss#word') cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session: SMTPServerSession, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const split = raw.indexOf('\r\n\r\n');
        const headers: Record<string, string> = {};
        for (const line of raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
        }
        const mailFrom = session.envelope.mailFrom;
        mails.push({
          from: mailFrom === false ? '' : mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          headers,
          body: raw.slice(split + 4).replace(/\r\n$/, ''),
          secure: session.secure,
          user: typeof session.user === 'string' ? session.user : undefined,
        });
        cb();
      });
    },
    ...options,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { port: (server.server.address() as AddressInfo).port, mails };
}

const send = (url: string, title: string, body: string) => parseNotificationUrls([url], BUILTIN_SERVICES)[0]!.send({ title, body }, never());

t.test('a plain mail: envelope, From with name, To, Subject from the title, text body', async (t) => {
  const { port, mails } = await smtpServer(t);
  await send(
    `smtp://127.0.0.1:${port}/?fromaddress=tidewatch@x.test&fromname=Watchtower&toaddresses=ops@x.test,dev+tag@x.test&usestarttls=no`,
    'Watchtower updates on host',
    'one updated',
  );
  t.equal(mails.length, 1);
  const m = mails[0]!;
  t.equal(m.from, 'tidewatch@x.test');
  t.same(m.to, ['ops@x.test', 'dev+tag@x.test'], 'a + in an address survives the query');
  t.equal(m.headers.from, 'Watchtower <tidewatch@x.test>');
  t.equal(m.headers.to, 'ops@x.test, dev+tag@x.test');
  t.equal(m.headers.subject, 'Watchtower updates on host');
  t.match(m.headers['content-type'], /^text\/plain/);
  t.equal(m.body, 'one updated');
  t.equal(m.secure, false);

  await send(`smtp://127.0.0.1:${port}/?from=a@x.test&to=b@x.test&usestarttls=no&subject=Fixed`, '', 'b');
  t.equal(mails[1]!.headers.subject, 'Fixed', 'no title: the URL subject');
  await send(`smtp://127.0.0.1:${port}/?from=a@x.test&to=b@x.test&usestarttls=no&usehtml=yes`, '', '<b>hi</b>');
  t.equal(mails[2]!.headers.subject, 'Shoutrrr Notification', "shoutrrr's default subject");
  t.match(mails[2]!.headers['content-type'], /^text\/html/);
});

t.test('user info logs in (an @ and a # in them need no escaping); STARTTLS when offered', async (t) => {
  const { port, mails } = await smtpServer(t);
  await send(
    `smtp://mailer@x.test:p@ss#word@127.0.0.1:${port}/?fromaddress=a@x.test&toaddresses=b@x.test&auth=Plain&skiptlsverify=yes`,
    'T',
    'authenticated',
  );
  t.equal(mails[0]!.user, 'mailer@x.test');
  t.equal(mails[0]!.secure, true, 'upgraded with STARTTLS (the server offers it)');
  t.equal(mails[0]!.body, 'authenticated');

  const message = await rejectsWithout(
    send(`smtp://mailer%40x.test:Wr0ngPassw0rd@127.0.0.1:${port}/?fromaddress=a@x.test&toaddresses=b@x.test&usestarttls=no`, 'T', 'x'),
    ['Wr0ngPassw0rd'],
  );
  t.match(message, /^smtp: sending through 127\.0\.0\.1:\d+ failed: EAUTH/);
  t.equal(mails.length, 1, 'nothing was delivered');
});

t.test('TLS on connect (ImplicitTLS)', async (t) => {
  const { port, mails } = await smtpServer(t, { secure: true });
  await send(`smtp://127.0.0.1:${port}/?fromaddress=a@x.test&toaddresses=b@x.test&encryption=ImplicitTLS&skiptlsverify=yes`, 'T', 'tls');
  t.equal(mails[0]!.secure, true);
  const message = await rejectsWithout(
    send(`smtp://127.0.0.1:${port}/?fromaddress=a@x.test&toaddresses=b@x.test&encryption=ImplicitTLS&timeout=2s`, 'T', 'x'),
    [],
  );
  t.match(message, /certificate/i, 'without skiptlsverify the self-signed certificate is refused');
});

t.test('bad smtp URLs', async (t) => {
  const parse = (url: string) => parseNotificationUrls([url], BUILTIN_SERVICES);
  t.throws(() => parse('smtp://h:25/?toaddresses=b@x.test'), { message: /smtp: no sender/ });
  t.throws(() => parse('smtp://h:25/?fromaddress=a@x.test'), { message: /smtp: no recipients/ });
  t.throws(() => parse('smtp://h/?from=a@x&to=b@x&encryption=SSL'), { message: /"encryption" must be one of None, ExplicitTLS, ImplicitTLS, Auto/ });
  t.throws(() => parse('smtp://h/?from=a@x&to=b@x&timeout=soon'), { message: /"timeout" must be a duration/ });
  t.throws(() => parse('smtp://h/?from=a@x&to=b@x&colour=red'), { message: /unknown parameter "colour"/ });
});
