// Preloaded into the binary by tests that must never reach the internet (NODE_OPTIONS=--import=<this file>):
// every name resolves to 127.0.0.1 except `localhost`, so a request meant for Docker Hub (registry-1.docker.io)
// is refused on loopback instead of leaving the machine. TIDEWATCH_TEST_DNS_LOG names a file that gets one line
// per name looked up, so a test can tell that a request was meant for Docker Hub. Test-only: nothing in the
// product reads these variables.
import dns from 'node:dns';
import { appendFileSync } from 'node:fs';

const log = process.env.TIDEWATCH_TEST_DNS_LOG;
const original = dns.lookup;

function loopbackLookup(hostname, options, callback) {
  const cb = typeof options === 'function' ? options : callback;
  const opts = typeof options === 'function' || options === undefined ? {} : typeof options === 'number' ? { family: options } : options;
  if (hostname === 'localhost' || /^[\d.]+$/.test(hostname) || hostname.includes(':')) return original(hostname, options, callback);
  if (log) appendFileSync(log, `${hostname}\n`);
  process.nextTick(() => (opts.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4)));
}

dns.lookup = loopbackLookup;
