import t from 'tap';
import { PktLineError, parsePktLines, parseRefAdvertisement } from '../../../plugins/git/pkt-line.js';

/** Frames payloads as pkt-lines; `null` is a flush. */
function pkt(...lines: (string | null)[]): Buffer {
  return Buffer.concat(
    lines.map((line) => {
      if (line === null) return Buffer.from('0000');
      const payload = Buffer.from(line, 'utf8');
      return Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, '0')), payload]);
    }),
  );
}

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const D = 'd'.repeat(40);

t.test('pkt-lines: lengths count bytes, LF is stripped, special packets are recognised', async (t) => {
  const packets = parsePktLines(Buffer.concat([pkt('héllo\n', 'no-lf'), Buffer.from('000000010002')]));
  t.same(packets, [
    { type: 'data', payload: 'héllo' },
    { type: 'data', payload: 'no-lf' },
    { type: 'flush' },
    { type: 'delim' },
    { type: 'end' },
  ]);
});

t.test('pkt-lines: malformed streams are refused, not half-read', async (t) => {
  t.throws(() => parsePktLines(Buffer.from('00')), PktLineError, 'truncated length');
  t.throws(() => parsePktLines(Buffer.from('zzzzabc')), /bad pkt-line length/);
  t.throws(() => parsePktLines(Buffer.from('0003')), /invalid pkt-line length 3/);
  t.throws(() => parsePktLines(Buffer.from('0010abc')), /truncated pkt-line/);
});

t.test('smart HTTP advertisement: service block, capabilities, symref, peeled tags', async (t) => {
  const body = pkt(
    '# service=git-upload-pack\n',
    null,
    `${A} HEAD\0multi_ack symref=HEAD:refs/heads/trunk object-format=sha1 agent=git/2.39.5\n`,
    `${A} refs/heads/trunk\n`,
    `${B} refs/heads/feature/x\n`,
    `${C} refs/tags/v1\n`,
    `${D} refs/tags/v1^{}\n`,
    null,
  );
  const adv = parseRefAdvertisement(body);
  t.equal(adv.refs.get('HEAD'), A);
  t.equal(adv.refs.get('refs/heads/feature/x'), B);
  t.equal(adv.refs.get('refs/tags/v1'), C, 'the tag object id as advertised');
  t.equal(adv.peeled.get('refs/tags/v1'), D, 'the ^{} line is the commit');
  t.equal(adv.symrefs.get('HEAD'), 'refs/heads/trunk');
  t.ok(adv.capabilities.includes('multi_ack'));
});

t.test('advertisement without the service block, with a version 1 line (protocol v1)', async (t) => {
  const adv = parseRefAdvertisement(pkt('version 1\n', `${A} refs/heads/main\0side-band-64k\n`, null));
  t.equal(adv.refs.get('refs/heads/main'), A);
  t.same(adv.capabilities, ['side-band-64k']);
  t.equal(adv.refs.has('HEAD'), false);
});

t.test('an empty repository advertises only capabilities^{}', async (t) => {
  const adv = parseRefAdvertisement(pkt('# service=git-upload-pack\n', null, `${'0'.repeat(40)} capabilities^{}\0agent=x\n`, null));
  t.equal(adv.refs.size, 0);
  t.same(adv.capabilities, ['agent=x']);
});

t.test('errors and protocol surprises are reported', async (t) => {
  t.throws(() => parseRefAdvertisement(pkt('ERR access denied\n')), /remote error: access denied/);
  t.throws(() => parseRefAdvertisement(pkt('version 2\n', 'ls-refs\n', null)), /protocol v2/);
  t.throws(() => parseRefAdvertisement(pkt('# service=git-receive-pack\n', null)), /unexpected service/);
  t.throws(() => parseRefAdvertisement(pkt('not-a-sha refs/heads/main\n', null)), /malformed ref line/);
});

t.test('SHA-256 object ids are accepted', async (t) => {
  const id = 'e'.repeat(64);
  t.equal(parseRefAdvertisement(pkt(`${id} refs/heads/main\0object-format=sha256\n`, null)).refs.get('refs/heads/main'), id);
});
