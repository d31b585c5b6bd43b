// Where --git-token / --git-password may go (docs/interface.md#git-credentials, decisions.md §18): only the hosts in
// --git-credential-hosts, and only over https or plain http to a loopback address. The security test
// (test/security/git-credential-hosts.test.ts) proves the host rule on a real Git server, which listens on loopback;
// the transport rule (a listed host over plain http elsewhere gets nothing) is held here, as is the option's parsing.
import t from 'tap';
import { CredentialHosts, isCredentialSafeTransport, parseCredentialHost } from '../../../plugins/git/credential-hosts.js';
import { runBinary } from '../../helpers/service.js';

t.test('a listed host receives the credentials over https, or over http only on loopback', async (t) => {
  const hosts = new CredentialHosts(['github.com', 'git.example.com:8443', '127.0.0.1:3000', 'localhost'].map(parseCredentialHost));
  const allows = (url: string) => hosts.allows(new URL(url));
  t.ok(allows('https://github.com/o/r.git'), 'https to a listed host');
  t.notOk(allows('http://github.com/o/r.git'), 'plain http to the same listed host: no credentials');
  t.notOk(allows('http://git.example.com:8443/o/r.git'), 'plain http to a listed host:port: none either');
  t.ok(allows('https://git.example.com:8443/o/r.git'), 'https to the listed host:port');
  t.ok(allows('http://127.0.0.1:3000/o/r.git'), 'plain http to a listed loopback address');
  t.ok(allows('http://localhost/o/r.git'), 'plain http to listed localhost');
  t.notOk(allows('https://attacker.example/x.git'), 'a host nobody listed');
  t.notOk(allows('https://github.com.attacker.example/x.git'), 'a name that only begins like a listed one');
  t.notOk(allows('https://github.com:8443/o/r.git'), 'an entry without a port matches the default port only');
  t.notOk(allows('https://git.example.com/o/r.git'), 'an entry with a port matches that port only');
  t.notOk(allows('http://127.0.0.1:3001/o/r.git'), 'loopback does not stand for listed: another port is another host');
  t.notOk(allows('ftp://github.com/o/r.git'), 'no other scheme');

  t.ok(isCredentialSafeTransport(new URL('http://127.8.9.10/')), '127.0.0.0/8 is loopback');
  t.ok(isCredentialSafeTransport(new URL('http://[::1]:80/')), '::1 is loopback');
  t.notOk(isCredentialSafeTransport(new URL('http://192.0.2.2/')), 'any other address is not');
  t.notOk(isCredentialSafeTransport(new URL('http://127.0.0.1.attacker.example/')), 'a name that begins like a loopback address is not');
});

t.test('--git-credential-hosts: host or host:port; anything else exits 2 naming the option', async (t) => {
  t.same(parseCredentialHost(' GitHub.com '), { hostname: 'github.com' });
  t.same(parseCredentialHost('git.example.com:08443'), { hostname: 'git.example.com', port: '8443' });
  t.same(parseCredentialHost('[::1]:3000'), { hostname: '[::1]', port: '3000' });
  for (const bad of ['https://github.com', 'github.com/org', 'user@github.com', 'github.com:0', 'github.com:70000', '', '*.example.com']) {
    t.throws(() => parseCredentialHost(bad), /is not a host name with an optional :port/, JSON.stringify(bad));
  }
  const run = await runBinary(['--git-credential-hosts', 'github.com,https://git.example.com', '--git-token', 'ghp_must_not_be_echoed', '--run-once']);
  t.equal(run.code, 2, 'exit 2');
  const said = (run.stdout + run.stderr).trim().split('\n');
  t.equal(said.length, 1, 'one line');
  t.match(said[0], /--git-credential-hosts/, 'naming the option');
  t.notMatch(run.stdout + run.stderr, /ghp_must_not_be_echoed/, 'never echoing the token');
});
