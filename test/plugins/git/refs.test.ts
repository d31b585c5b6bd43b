import t from 'tap';
import type { RefAdvertisement } from '../../../plugins/git/pkt-line.js';
import { RefNotFoundError, refCandidates, selectRef } from '../../../plugins/git/refs.js';
import { githubRefCandidates } from '../../../plugins/git/github.js';

const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);
const D = 'd'.repeat(40);
const E = 'e'.repeat(40);

function adv(refs: Record<string, string>, peeled: Record<string, string> = {}, head?: string): RefAdvertisement {
  return {
    refs: new Map(Object.entries(refs)),
    peeled: new Map(Object.entries(peeled)),
    symrefs: new Map(head ? [['HEAD', head]] : []),
    capabilities: [],
  };
}

const remote = adv(
  {
    HEAD: A,
    'refs/heads/develop': A,
    'refs/heads/main': B,
    'refs/heads/both': C,
    'refs/tags/both': D,
    'refs/tags/v1': E,
    'refs/tags/light': B,
  },
  { 'refs/tags/v1': C, 'refs/tags/both': A },
  'refs/heads/develop',
);

t.test('no ref: the default branch named by the HEAD symref', async (t) => {
  t.same(selectRef(remote, undefined), { ref: 'develop', fullName: 'refs/heads/develop', commit: A });
  t.same(selectRef(remote, ''), { ref: 'develop', fullName: 'refs/heads/develop', commit: A });
});

t.test('no ref and no symref capability: HEAD itself', async (t) => {
  t.same(selectRef(adv({ HEAD: B }), undefined), { ref: 'HEAD', fullName: 'HEAD', commit: B });
  t.throws(() => selectRef(adv({}), undefined), RefNotFoundError);
});

t.test('a bare name is a branch before it is a tag', async (t) => {
  t.equal(selectRef(remote, 'main').commit, B);
  t.same(selectRef(remote, 'both'), { ref: 'both', fullName: 'refs/heads/both', commit: C });
});

t.test('tags: lightweight as advertised, annotated peeled to the commit', async (t) => {
  t.same(selectRef(remote, 'light'), { ref: 'light', fullName: 'refs/tags/light', commit: B });
  t.same(selectRef(remote, 'v1'), { ref: 'v1', fullName: 'refs/tags/v1', commit: C });
});

t.test('full refs/ names are used as given', async (t) => {
  t.same(selectRef(remote, 'refs/tags/both'), { ref: 'refs/tags/both', fullName: 'refs/tags/both', commit: A });
  t.throws(() => selectRef(remote, 'refs/both'), /ref "refs\/both" not found/);
});

t.test('unknown refs are errors, not silently the default branch', async (t) => {
  t.throws(() => selectRef(remote, 'nope'), RefNotFoundError);
});

t.test('candidate orders', async (t) => {
  t.same(refCandidates('main'), ['refs/heads/main', 'refs/tags/main']);
  t.same(refCandidates('refs/tags/v1'), ['refs/tags/v1']);
  t.same(refCandidates('HEAD'), ['HEAD']);
  t.same(githubRefCandidates('feature/x'), ['heads/feature/x', 'tags/feature/x']);
  t.same(githubRefCandidates('refs/tags/v1'), ['tags/v1']);
});
