// Watchtower's template functions (docs/notifications.md, "Templates"): ToUpper, ToLower, Title,
// ToJSON, ToPorcelainJSON and RFC1123, beside Go's predefined ones.
import { builtins, type TemplateFunction } from './builtins.js';
import { Report } from './data.js';
import { GoTime, RFC1123 } from './gotime.js';
import { JSONObject, marshalIndent } from './json.js';

/** Go's strings.ToUpper/ToLower map rune by rune (simple case mapping: `ß` stays `ß`). */
function mapRunes(s: string, upper: boolean): string {
  let out = '';
  for (const ch of s) {
    const mapped = upper ? ch.toUpperCase() : ch.toLowerCase();
    // Go maps one rune to one rune: `ß` has no single upper case; `İ` lowers to `i`.
    out += [...mapped].length === 1 ? mapped : upper ? ch : ([...mapped][0] as string);
  }
  return out;
}

const TITLE_DIGRAPHS: Record<string, string> = { ǆ: 'ǅ', Ǆ: 'ǅ', ǉ: 'ǈ', Ǉ: 'ǈ', ǌ: 'ǋ', Ǌ: 'ǋ', ǳ: 'ǲ', Ǳ: 'ǲ' };
const MID = new Set(["'", '.', ':', '·', '’', '‘', '\u0387', '\u05F4', '\u2027', '\uFE13', '\uFE52', '\uFE55', '\uFF07', '\uFF0E', '\uFF1A']);
const isCased = (ch: string) => ch.toLowerCase() !== ch.toUpperCase() || /\p{Lt}/u.test(ch);
const isCaseIgnorable = (ch: string) => MID.has(ch) || /[\p{Mn}\p{Me}\p{Cf}\p{Lm}\p{Sk}]/u.test(ch);

/** Title case of one letter: Unicode's full mapping (`ß` → `Ss`, `ﬁ` → `Fi`, `ŉ` → `ʼN`). */
function titleLetter(ch: string): string {
  if (TITLE_DIGRAPHS[ch]) return TITLE_DIGRAPHS[ch] as string;
  const upper = [...ch.toUpperCase()];
  if (upper.length === 1) return upper[0] as string;
  let seenCased = false;
  return upper
    .map((c) => {
      if (!isCased(c)) return c;
      if (seenCased) return c.toLowerCase();
      seenCased = true;
      return c;
    })
    .join('');
}

/**
 * Title casing as Watchtower's `Title` does it (Unicode word breaks, approximated): the first cased
 * letter of a word is title-cased, the rest lower-cased (a word-final Σ becomes ς); letters, digits, `_`
 * and marks never break a word, `'` `.` `:` join letters unless doubled, anything else breaks.
 */
export function titleCase(s: string): string {
  const chars = [...s];
  let out = '';
  let midWord = false;
  let prevMid = false;
  chars.forEach((ch, i) => {
    const isMid = MID.has(ch);
    if (prevMid && isMid) midWord = false;
    if (isCased(ch)) {
      if (!midWord) {
        out += titleLetter(ch);
        midWord = true;
      } else if (ch === 'Σ') {
        const next = chars.slice(i + 1).find((c) => !isCaseIgnorable(c));
        out += next !== undefined && isCased(next) ? 'σ' : 'ς';
      } else out += mapRunes(ch, false);
    } else {
      out += ch;
      const letter = /[\p{L}\p{N}\p{M}\p{Pc}\p{Cf}]/u.test(ch);
      if (!letter && !isMid) midWord = false;
    }
    prevMid = isMid;
  });
  return out;
}

function toPorcelainJSON(report: unknown): string {
  const containers: JSONObject[] = [];
  if (report instanceof Report) {
    for (const c of report.All()) {
      // A Go struct with json tags: this key order, `error` omitted when empty.
      const item = new JSONObject([
        ['name', c.Name()],
        ['image', c.ImageName()],
        ['image_id', c.CurrentImageID().ShortID()],
        ['latest_image_id', c.LatestImageID().ShortID()],
        ['state', c.State()],
        ['update_available', c.CurrentImageID().value !== c.LatestImageID().value],
      ]);
      if (c.Error() !== '') item.entries.push(['error', c.Error()]);
      containers.push(item);
    }
  }
  return marshalIndent({ containers });
}

function toJSON(v: unknown): string {
  try {
    return marshalIndent(v);
  } catch (err) {
    return `failed to marshal JSON in notification template: ${(err as Error).message}`;
  }
}

function rfc1123(value: string): string {
  try {
    return GoTime.parseRFC3339(value).Format(RFC1123);
  } catch {
    return value;
  }
}

export const watchtowerFunctions: Readonly<Record<string, TemplateFunction>> = {
  ToUpper: { params: ['string'], call: (s) => mapRunes(s as string, true) },
  ToLower: { params: ['string'], call: (s) => mapRunes(s as string, false) },
  Title: { params: ['string'], call: (s) => titleCase(s as string) },
  ToJSON: { params: ['any'], call: toJSON },
  ToPorcelainJSON: { params: ['report'], call: toPorcelainJSON },
  RFC1123: { params: ['string'], call: (s) => rfc1123(s as string) },
};

/** Every function a notification template can call. */
export const templateFunctions: Readonly<Record<string, TemplateFunction>> = { ...builtins, ...watchtowerFunctions };
