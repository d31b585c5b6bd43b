// The engine's registry mirrors as `GET /info` lists them (docs/registry-mirrors.md): what is used, in which
// order, and what an unreadable /info means.
import t from 'tap';
import { MIRRORS_MAX_AGE_MS, mirrorsOf, mirrorsReader, type MirrorsInfo } from '../../../plugins/docker/engine/registry-mirrors.js';
import { memoryLogger } from '../../helpers/memory-logger.js';

const info = (mirrors: unknown[] | null): MirrorsInfo => ({ RegistryConfig: { Mirrors: mirrors } });

t.test('origins in the engine order, once each; a path prefix or another scheme is left out and said', async (t) => {
  const skipped: string[] = [];
  const list = mirrorsOf(
    info(['https://mirror.example/', 'http://127.0.0.1:5000/', 'https://mirror.example', 'https://proxy.example/dockerhub/', 'ftp://old.example/', 7, 'not a url']),
    (mirror, why) => skipped.push(`${mirror} ${why}`),
  );
  t.same(list, ['https://mirror.example', 'http://127.0.0.1:5000']);
  t.same(skipped, ['https://proxy.example has a path prefix', 'ftp://old.example not http or https', '(unparsable entry) not a URL']);
});

t.test('none listed (Podman\'s API, an engine without mirrors), and at most 8 tried', async (t) => {
  t.same(mirrorsOf({}), []);
  t.same(mirrorsOf(info(null)), []);
  t.same(mirrorsOf({ RegistryConfig: null }), []);
  const many = Array.from({ length: 12 }, (_, i) => `http://127.0.0.1:${5000 + i}/`);
  t.equal(mirrorsOf(info(many)).length, 8);
});

t.test('an unreadable /info means no mirrors (Docker Hub asked directly), warned once; the read is re-used for a while', async (t) => {
  const logger = memoryLogger();
  let fail = true;
  const ages: number[] = [];
  const read = mirrorsReader(
    async (maxAgeMs) => {
      ages.push(maxAgeMs);
      if (fail) throw new Error('403 Forbidden');
      return info(['http://127.0.0.1:5000/']);
    },
    logger,
    'unix:///engine',
  );
  t.same(await read(), []);
  t.same(await read(), []);
  t.equal(logger.lines.filter((l) => /cannot read the engine's registry mirrors/.test(String(l.msg))).length, 1, 'said once');
  fail = false;
  t.same(await read(), ['http://127.0.0.1:5000']);
  t.same(ages, [MIRRORS_MAX_AGE_MS, MIRRORS_MAX_AGE_MS, MIRRORS_MAX_AGE_MS], 'the runtime re-reads /info when older than this');
});
