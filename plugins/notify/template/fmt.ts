// Go's fmt for template values (docs/notifications.md, "Templates"): %v printing, Sprint, Sprintln and
// Sprintf with the verbs, flags, widths and precisions templates use, including Go's `%!verb(type=value)`.
import {
  GoStruct,
  MISSING,
  kindOf,
  mapEntries,
  methodOf,
  numberOf,
  stringOf,
  structFields,
  typeName,
} from './values.js';

/** Go's strconv.FormatFloat(f, 'g', prec, 64); prec -1 is the shortest exact form. */
export function formatG(f: number, prec = -1): string {
  if (!Number.isFinite(f)) return Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const exp = prec < 0 ? f.toExponential() : f.toExponential(Math.max(prec, 1) - 1);
  const [mant, e] = exp.split('e') as [string, string];
  const negative = mant.startsWith('-');
  const digits = mant.replace(/^-/, '').replace('.', '').replace(/0+$/, '') || '0';
  const x = Number(e);
  let eprec = prec < 0 ? 6 : Math.max(prec, 1);
  if (prec >= 0 && eprec > digits.length && digits.length >= x + 1) eprec = digits.length;
  if (prec < 0) eprec = 6;
  let out: string;
  if (x < -4 || x >= eprec) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    out = `${m}e${x < 0 ? '-' : '+'}${String(Math.abs(x)).padStart(2, '0')}`;
  } else if (x < 0) {
    out = `0.${'0'.repeat(-x - 1)}${digits}`;
  } else if (digits.length <= x + 1) {
    out = digits + '0'.repeat(x + 1 - digits.length);
  } else {
    out = `${digits.slice(0, x + 1)}.${digits.slice(x + 1)}`;
  }
  return negative ? `-${out}` : out;
}

/**
 * Rounds like Go (round half to even on an exact tie) where JavaScript rounds a tie away from zero:
 * `format(p)` is toFixed or toExponential; a tie shows as `5` then only zeros in a longer expansion.
 */
function roundEven(f: number, prec: number, format: (p: number) => string): string {
  const rounded = format(prec);
  if (prec >= 90) return rounded;
  const long = format(Math.min(100, prec + 30));
  const [mantissa] = long.split('e') as [string];
  const fracStart = mantissa.indexOf('.') + 1;
  const rest = mantissa.slice(fracStart + prec);
  if (!/^50*$/.test(rest)) return rounded;
  const truncated = format(Math.min(100, prec + 30)).replace(/^(-?\d+(?:\.\d*)?)/, (m) => m.slice(0, fracStart + prec));
  const lastDigit = Number(truncated.replace(/e.*$/, '').replace(/\.$/, '').slice(-1));
  if (lastDigit % 2 === 1) return rounded;
  return truncated.replace(/\.(?=e|$)/, '');
}

function formatE(f: number, prec: number, upper: boolean): string {
  const s = roundEven(f, prec, (p) => f.toExponential(p)).replace(/e([+-])(\d)$/, 'e$10$2');
  return upper ? s.toUpperCase() : s;
}

/** strconv.Quote: a double-quoted Go string literal. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\x07') out += '\\a';
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (ch === '\v') out += '\\v';
    else if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (/[\p{C}\p{Z}]/u.test(ch) && ch !== ' ') {
      out += cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** The text of a value's Error() or String() method, as fmt uses it for %v and %s. */
function methodText(v: unknown): string | undefined {
  const m = methodOf(v, 'Error') ?? methodOf(v, 'String');
  return m ? String(m()) : undefined;
}

/** fmt's %v (plus: %+v names struct fields). */
export function formatValue(v: unknown, plus = false): string {
  const viaMethod = methodText(v);
  if (viaMethod !== undefined) return viaMethod;
  switch (kindOf(v)) {
    case 'invalid':
    case 'nil':
      return '<nil>';
    case 'bool':
      return String(v);
    case 'int':
      return String(v);
    case 'float':
      return formatG(numberOf(v));
    case 'string':
      return stringOf(v);
    case 'slice':
      return `[${(v as unknown[]).map((e) => formatValue(e, plus)).join(' ')}]`;
    case 'map':
      return `map[${mapEntries(v)
        .map(([k, e]) => `${k}:${formatValue(e, plus)}`)
        .join(' ')}]`;
    case 'func':
      return '0x0';
    default: {
      const fields = structFields(v as object, false);
      return `{${fields.map(([k, e]) => (plus ? `${k}:` : '') + formatValue(e, plus)).join(' ')}}`;
    }
  }
}

/** fmt.Sprint: spaces between operands when neither side is a string. */
export function sprint(args: unknown[]): string {
  let out = '';
  args.forEach((a, i) => {
    const isString = kindOf(a) === 'string' && !(a instanceof GoStruct);
    const prevString = i > 0 && kindOf(args[i - 1]) === 'string';
    if (i > 0 && !isString && !prevString) out += ' ';
    out += formatValue(a);
  });
  return out;
}

export function sprintln(args: unknown[]): string {
  return `${args.map((a) => formatValue(a)).join(' ')}\n`;
}

interface Spec {
  minus: boolean;
  plus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number | undefined;
  prec: number | undefined;
}

function pad(s: string, spec: Spec, numeric: boolean): string {
  if (spec.width === undefined || [...s].length >= spec.width) return s;
  const fill = spec.width - [...s].length;
  if (spec.minus) return s + ' '.repeat(fill);
  if (spec.zero) {
    const sign = numeric && /^[+\- ]/.test(s) ? s[0] : '';
    return sign + '0'.repeat(fill) + s.slice(sign.length);
  }
  return ' '.repeat(fill) + s;
}

function signed(n: string, negative: boolean, spec: Spec): string {
  return (negative ? '-' : spec.plus ? '+' : spec.space ? ' ' : '') + n;
}

function badVerb(verb: string, v: unknown): string {
  const k = kindOf(v);
  if (k === 'nil' || k === 'invalid') return `%!${verb}(<nil>)`;
  return `%!${verb}(${typeName(v)}=${formatValue(v)})`;
}

function formatInt(n: number, verb: string, spec: Spec): string | undefined {
  const abs = Math.abs(n);
  let digits: string;
  switch (verb) {
    case 'd':
    case 'v':
      digits = String(abs);
      break;
    case 'b':
      digits = abs.toString(2);
      break;
    case 'o':
    case 'O':
      digits = (verb === 'O' ? '0o' : spec.sharp ? '0' : '') + abs.toString(8);
      break;
    case 'x':
    case 'X':
      digits = (spec.sharp ? '0x' : '') + abs.toString(16);
      if (verb === 'X') digits = digits.toUpperCase();
      break;
    case 'c':
      return String.fromCodePoint(n);
    case 'q':
      return `'${goQuote(String.fromCodePoint(n)).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
    case 'U':
      return `U+${n.toString(16).toUpperCase().padStart(4, '0')}`;
    default:
      return undefined;
  }
  if (spec.prec !== undefined) digits = digits.padStart(spec.prec, '0');
  return signed(digits, n < 0, spec);
}

function formatFloat(f: number, verb: string, spec: Spec): string | undefined {
  const abs = Math.abs(f);
  let s: string;
  switch (verb) {
    case 'v':
    case 'g':
    case 'G':
      s = formatG(abs, spec.prec ?? -1);
      if (verb === 'G') s = s.toUpperCase();
      break;
    case 'e':
    case 'E':
      s = formatE(abs, spec.prec ?? 6, verb === 'E');
      break;
    case 'f':
    case 'F':
      s = roundEven(abs, spec.prec ?? 6, (p) => abs.toFixed(p));
      break;
    default:
      return undefined;
  }
  return signed(s, f < 0 || Object.is(f, -0), spec);
}

function formatString(s: string, verb: string, spec: Spec): string | undefined {
  const cut = spec.prec !== undefined ? [...s].slice(0, spec.prec).join('') : s;
  switch (verb) {
    case 'v':
    case 's':
      return cut;
    case 'q':
      return goQuote(cut);
    case 'x':
    case 'X': {
      const hex = [...Buffer.from(cut, 'utf8')].map((b) => b.toString(16).padStart(2, '0'));
      const joined = hex.join(spec.space ? ' ' : '');
      return verb === 'X' ? joined.toUpperCase() : joined;
    }
    default:
      return undefined;
  }
}

/** One operand under one verb, without padding. */
function formatOne(v: unknown, verb: string, spec: Spec, nested = false): { text: string; numeric: boolean } {
  if (nested && (v === null || v === undefined || v === MISSING)) return { text: '<nil>', numeric: false };
  if (verb === 'T') return { text: typeName(v), numeric: false };
  if (['v', 's', 'q', 'x', 'X'].includes(verb)) {
    const viaMethod = methodText(v);
    if (viaMethod !== undefined) {
      const text = formatString(viaMethod, verb === 'v' ? 's' : verb, spec);
      if (text !== undefined) return { text, numeric: false };
    }
  }
  const kind = kindOf(v);
  let text: string | undefined;
  switch (kind) {
    case 'bool':
      text = verb === 't' || verb === 'v' ? String(v) : undefined;
      break;
    case 'int':
      text = formatInt(numberOf(v), verb, spec);
      break;
    case 'float':
      text = formatFloat(numberOf(v), verb, spec);
      break;
    case 'string':
      text = formatString(stringOf(v), verb, spec);
      break;
    case 'slice':
      {
        const items = (v as unknown[]).map((e) => formatOne(e, verb, { ...spec, width: undefined }, true).text);
        text = `[${items.join(' ')}]`;
      }
      break;
    case 'map':
      text = `map[${mapEntries(v)
        .map(([k, e]) => `${formatOne(k, verb, spec, true).text}:${formatOne(e, verb, spec, true).text}`)
        .join(' ')}]`;
      break;
    case 'nil':
    case 'invalid':
      text = verb === 'v' ? '<nil>' : undefined;
      break;
    default:
      text = verb === 'v' ? formatValue(v, spec.plus) : undefined;
  }
  if (text === undefined) return { text: badVerb(verb, v), numeric: false };
  return { text, numeric: kind === 'int' || kind === 'float' };
}

/** fmt.Sprintf. */
export function sprintf(format: string, args: unknown[]): string {
  let out = '';
  let argIndex = 0;
  const re = /%([-+# 0]*)(\*|\d+)?(?:\.(\*|\d*))?(.|$)/gsu;
  let last = 0;
  for (let m = re.exec(format); m !== null; m = re.exec(format)) {
    out += format.slice(last, m.index);
    last = re.lastIndex;
    const flags = m[1] ?? '';
    const spec: Spec = {
      minus: flags.includes('-'),
      plus: flags.includes('+'),
      sharp: flags.includes('#'),
      space: flags.includes(' '),
      zero: flags.includes('0') && !flags.includes('-'),
      width: undefined,
      prec: undefined,
    };
    const star = (): number | undefined => {
      const a = args[argIndex++];
      return kindOf(a) === 'int' ? numberOf(a) : undefined;
    };
    if (m[2] !== undefined) spec.width = m[2] === '*' ? star() : Number(m[2]);
    if (m[3] !== undefined) spec.prec = m[3] === '*' ? star() : Number(m[3] || '0');
    const verb = m[4] ?? '';
    if (verb === '') {
      out += '%!(NOVERB)';
      break;
    }
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argIndex >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const { text, numeric } = formatOne(args[argIndex++], verb, spec);
    out += pad(text, spec, numeric);
  }
  out += format.slice(last);
  if (argIndex < args.length) {
    out += `%!(EXTRA ${args
      .slice(argIndex)
      .map((a) => `${typeName(a)}=${formatValue(a)}`)
      .join(', ')})`;
  }
  return out;
}
