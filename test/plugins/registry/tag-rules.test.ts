// Reading a target's tag policy from its labels (docs/tags.md#labels), and the tag list's Link header.
import t from 'tap';
import { DEFAULT_TAG_RULES, tagRulesOf, transformOf } from '../../../plugins/registry/tags/rules.js';
import { nextPageQuery } from '../../../plugins/registry/tags/list.js';

t.test('the policy: label, Watchtower alias, global default', async (t) => {
  t.equal(tagRulesOf({}, 'digest'), DEFAULT_TAG_RULES, 'no label, global digest: the default path');
  t.match(tagRulesOf({}, 'minor'), { policy: 'minor', shown: true, rules: { explicit: false } }, 'global: not explicit');
  t.match(tagRulesOf({ 'tidewatch.tag.policy': 'patch' }, 'digest'), { policy: 'patch', rules: { explicit: true, prerelease: false } });
  t.match(tagRulesOf({ 'com.centurylinklabs.watchtower.tag.policy': 'major' }, 'digest'), { policy: 'major' });
  t.match(tagRulesOf({ 'tidewatch.tag.policy': 'pin', 'com.centurylinklabs.watchtower.tag.policy': 'major' }, 'digest'), { policy: 'pin' }, 'tidewatch. wins');
  t.same(tagRulesOf({ 'tidewatch.tag.policy': 'digest' }, 'minor'), { policy: 'digest', shown: true });
  t.throws(() => tagRulesOf({ 'com.centurylinklabs.watchtower.tag.policy': 'Minor' }, 'digest'), /label com\.centurylinklabs\.watchtower\.tag\.policy: "Minor" is not one of/);
});

t.test('include, exclude, transform, prerelease and their aliases', async (t) => {
  const rules = tagRulesOf({ 'tidewatch.tag.policy': 'minor', 'wud.tag.include': '^1\\.', 'tidewatch.tag.exclude': 'rc', 'tidewatch.tag.prerelease': 'TRUE' }, 'digest').rules!;
  t.ok(rules.include?.('1.2.3'));
  t.notOk(rules.include?.('2.0.0'));
  t.ok(rules.exclude?.('1.2.3-rc1'), 'a search anywhere in the tag, as What\'s Up Docker');
  t.equal(rules.prerelease, true, "Go's ParseBool");
  const both = tagRulesOf({ 'tidewatch.tag.policy': 'minor', 'tidewatch.tag.include': '^2', 'wud.tag.include': '^1' }, 'digest').rules!;
  t.ok(both.include?.('2.0.0'), 'the tidewatch. label wins over the wud. alias');
  t.throws(() => tagRulesOf({ 'tidewatch.tag.policy': 'minor', 'tidewatch.tag.prerelease': 'maybe' }, 'digest'), /label tidewatch\.tag\.prerelease: "maybe" is not a boolean/);
  t.throws(() => tagRulesOf({ 'tidewatch.tag.policy': 'minor', 'tidewatch.tag.exclude': 'a'.repeat(257) }, 'digest'), /tidewatch\.tag\.exclude.*too costly: 257 characters/);
  // The request filters' cost bound applies to labels too: short, but a counted repetition past the limit.
  t.throws(() => tagRulesOf({ 'tidewatch.tag.policy': 'minor', 'tidewatch.tag.include': '(?:ab|cd){1000}' }, 'digest'), /tidewatch\.tag\.include.*too costly: a repetition count of 1000/);
  t.throws(() => tagRulesOf({ 'tidewatch.tag.policy': 'minor', 'tidewatch.tag.include': '(?=x)' }, 'digest'), /invalid RE2 pattern/, 'no lookahead: RE2');
});

t.test("transform: What's Up Docker's REGEX => $1 form", async (t) => {
  const f = transformOf('tidewatch.tag.transform', '^v?(\\d+)\\.(\\d+)-build(\\d+)$ => $1.$2.$3');
  t.equal(f('v1.2-build7'), '1.2.7');
  t.equal(f('latest'), 'latest', 'no match: the tag as it is');
  t.throws(() => transformOf('wud.tag.transform', '^(\\d+)$'), /expected "REGEX => \$1"/);
  t.throws(() => transformOf('wud.tag.transform', '^(\\d+)$ => $1.$2'), /label wud\.tag\.transform: \$2 names a group/);
});

t.test('the next page is the one Link names, on the same tag list only', async (t) => {
  const here = new URL('http://127.0.0.1:5000/v2/org/app/tags/list?n=1000');
  t.equal(nextPageQuery('</v2/org/app/tags/list?last=1.0.9&n=1000>; rel="next"', here), 'last=1.0.9&n=1000', 'relative, as Distribution 3 and GHCR send it');
  t.equal(nextPageQuery('<http://127.0.0.1:5000/v2/org/app/tags/list?n=1000&last=x>; rel=next', here), 'n=1000&last=x');
  t.equal(nextPageQuery('</v2/org/app/tags/list?last=a>; rel="prev"', here), undefined, 'only rel=next');
  t.equal(nextPageQuery(undefined, here), undefined);
  t.throws(() => nextPageQuery('<http://elsewhere.example/v2/org/app/tags/list?last=a>; rel="next"', here), /elsewhere/);
  t.throws(() => nextPageQuery('</v2/other/tags/list?last=a>; rel="next"', here), /elsewhere/);
});
