// generic:// and generic+http(s):// against a loopback webhook: the body (text, or JSON with
// template=json), headers from @params, extra JSON fields from $params, forwarded parameters, method,
// basic auth from user info, and failures that never show the webhook's secrets.
import { createServer } from 'node:http';
import t from 'tap';
import { createGenericService, headerName } from '../../../plugins/notify/services/generic.js';
import { parseNotificationUrls } from '../../../plugins/notify/urls.js';
import { closeServer, listenOnLoopback } from '../../helpers/loopback-server.js';
import { CaptureServer, never, rejectsWithout } from '../../helpers/capture-server.js';

const services = [createGenericService()];
const sender = (url: string) => parseNotificationUrls([url], services)[0]!;

t.test('generic', async (t) => {
  const server = await new CaptureServer().start();
  t.teardown(() => server.close());

  t.test('plain text: the body as text/plain POSTed to the path, unknown params forwarded', async (t) => {
    server.requests.length = 0;
    const s = sender(`generic://${server.host}/api/hook?disabletls=yes&source=tidewatch&@acceptLanguage=tlh-Piqd&@X-Custom=v1`);
    t.equal(s.service, 'generic');
    await s.send({ title: 'T', body: 'hello\nworld' }, never());
    const r = server.requests[0]!;
    t.equal(r.method, 'POST');
    t.equal(r.path, '/api/hook');
    t.same([...r.query.entries()], [['source', 'tidewatch']], 'disabletls and @headers are not forwarded');
    t.equal(r.headers['content-type'], 'text/plain');
    t.equal(r.headers['accept-language'], 'tlh-Piqd', '@acceptLanguage becomes Accept-Language');
    t.equal(r.headers['x-custom'], 'v1');
    t.equal(r.body, 'hello\nworld');
    t.equal(r.headers.authorization, undefined, 'no user info, no basic auth (an @ in the query is a header)');
  });

  t.test('template=json: title and message under their keys, $fields added', async (t) => {
    server.requests.length = 0;
    await sender(`generic://${server.host}/j?disabletls=yes&template=json&$projection=retroazimuthal`).send(
      { title: 'Updates', body: 'one updated' },
      never(),
    );
    let r = server.requests[0]!;
    t.equal(r.headers['content-type'], 'application/json');
    t.same(r.json, { title: 'Updates', message: 'one updated', projection: 'retroazimuthal' });

    await sender(`generic://${server.host}/j?disabletls=yes&template=JSON&titlekey=alert_title&messageKey=alert_message`).send(
      { title: 'A', body: 'B' },
      never(),
    );
    r = server.requests[1]!;
    t.same(r.json, { alert_title: 'A', alert_message: 'B' }, 'titlekey/messagekey, any letter case');

    await sender(`generic://${server.host}/j?disabletls=yes&template=json`).send({ title: '', body: 'no title' }, never());
    t.same(server.requests[2]!.json, { message: 'no title' }, 'an empty title (skip-title) leaves the key out');
  });

  t.test('method, contenttype, and _-escaped reserved params are forwarded', async (t) => {
    server.requests.length = 0;
    await sender(`generic+http://${server.host}/p?method=PUT&contenttype=text/markdown&_contenttype=x&__method=y`).send(
      { title: '', body: 'b' },
      never(),
    );
    const r = server.requests[0]!;
    t.equal(r.method, 'PUT');
    t.equal(r.headers['content-type'], 'text/markdown');
    t.same(Object.fromEntries(r.query), { contenttype: 'x', method: 'y' });
  });

  t.test('user info becomes basic auth; a failure keeps every secret out of the error', async (t) => {
    server.requests.length = 0;
    server.answer = () => ({ status: 403, body: 'denied for s3cr3tpass and hook-secret-123' });
    const s = sender(`generic+http://hookuser:s3cr3tpass@${server.host}/hook-secret-123?@Authorization=Bearer%20tok-987654`);
    const message = await rejectsWithout(s.send({ title: '', body: 'x' }, never()), ['s3cr3tpass', 'hook-secret-123', 'tok-987654']);
    t.match(message, /generic: HTTP 403/);
    t.equal(server.requests[0]!.headers.authorization, 'Bearer tok-987654', 'an @Authorization header wins over user info');
    server.answer = () => ({ status: 200 });

    await sender(`generic+http://hookuser:s3cr3tpass@${server.host}/x`).send({ title: '', body: 'x' }, never());
    t.equal(server.requests[1]!.headers.authorization, `Basic ${Buffer.from('hookuser:s3cr3tpass').toString('base64')}`);
  });

  t.test('redacted hides user info, path, headers and forwarded values', async (t) => {
    const s = sender('generic+https://u:pw-secret@example.com/api/webhook/abc123secret?template=json&@Authorization=Bearer%20zzz&key=k-secret');
    t.notMatch(s.redacted, /pw-secret|abc123secret|zzz|k-secret/);
    t.match(s.redacted, /^generic\+https:\/\/REDACTED:REDACTED@example\.com\/REDACTED\?template=json/);
  });

  t.test('a webhook that is down rejects with the reason, not the URL', async (t) => {
    const closed = await new CaptureServer().start();
    const host = closed.host;
    await closed.close();
    const message = await rejectsWithout(sender(`generic+http://${host}/secret-path-1234`).send({ title: '', body: 'x' }, never()), [
      'secret-path-1234',
    ]);
    t.match(message, /ECONNREFUSED/);
  });

  t.test('the caller can cancel', async (t) => {
    server.answer = () => ({ status: 200 });
    const ac = new AbortController();
    ac.abort();
    const message = await rejectsWithout(sender(`generic+http://${server.host}/x`).send({ title: '', body: 'x' }, ac.signal), []);
    t.match(message, /cancelled/);
  });
});

t.test('a webhook that never answers times out', async (t) => {
  const silent = createServer(() => {});
  const host = await listenOnLoopback(silent);
  t.teardown(() => closeServer(silent));
  const [s] = parseNotificationUrls([`generic+http://${host}/x`], [createGenericService({ timeoutMs: 300 })]);
  const started = Date.now();
  const message = await rejectsWithout(s!.send({ title: '', body: 'x' }, never()), []);
  t.match(message, /generic: request to 127\.0\.0\.1:\d+ failed: timed out after 300 ms/);
  t.ok(Date.now() - started < 5_000, 'well before any default');
});

t.test('header names are normalised as shoutrrr does', async (t) => {
  t.equal(headerName('acceptLanguage'), 'Accept-Language');
  t.equal(headerName('Authorization'), 'Authorization');
  t.equal(headerName('x-custom'), 'X-Custom');
  t.equal(headerName('X-Custom'), 'X-Custom');
});

t.test('bad generic URLs', async (t) => {
  t.throws(() => sender('generic:///path'), { message: /generic: the URL names no host/ });
  t.throws(() => sender('generic://h/?template=fancy'), { message: /template must be "json"/ });
  t.throws(() => sender('generic://h/?disabletls=maybe'), { message: /"disabletls" must be yes or no/ });
});
