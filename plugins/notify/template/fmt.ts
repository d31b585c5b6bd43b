// Go's fmt for template values (docs/notifications.md, "Templates"): %v printing, Sprint, Sprintln and
// Sprintf with the verbs, flags, widths and precisions templates use, including Go's `%!verb(type=value)`.
import { formatB, formatE, formatG, formatX, keepZeros, roundEven } from './floats.js';
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

/** strconv.Quote: a double-quoted Go string literal. */
export function goQuote(s: string, asciiOnly = false): string {
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
    else if ((/[\p{C}\p{Z}]/u.test(ch) && ch !== ' ') || (asciiOnly && cp > 0x7e)) {
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
      return String(numberOf(v));
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
  /** `%+v`: field names for structs, no sign (Go turns `+` into this for the v verb). */
  plusV: boolean;
  /** `%#v`: Go syntax (quoted strings, typed composites); Go turns `#` into this for the v verb. */
  sharpV: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  width: number | undefined;
  prec: number | undefined;
}

/** Pads one leaf value to the width; zeros go after a sign, and not for an int given a precision. */
function pad(s: string, spec: Spec, numeric: boolean, intWithPrec = false): string {
  if (spec.width === undefined || [...s].length >= spec.width) return s;
  const fill = spec.width - [...s].length;
  if (spec.minus) return s + ' '.repeat(fill);
  if (spec.zero && !intWithPrec) {
    const sign = numeric && /^[+\- ]/.test(s) ? s[0] : '';
    return sign + '0'.repeat(fill) + s.slice(sign.length);
  }
  return ' '.repeat(fill) + s;
}

function signed(n: string, negative: boolean, spec: Spec): string {
  return (negative ? '-' : spec.plus ? '+' : spec.space ? ' ' : '') + n;
}

/** The character of a rune; an invalid one (a surrogate, beyond U+10FFFF) is U+FFFD, as in Go. */
function runeOf(n: number): string {
  const valid = n >= 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff);
  return String.fromCodePoint(valid ? n : 0xfffd);
}

function formatInt(n: number, verb: string, spec: Spec): string | undefined {
  const abs = Math.abs(n);
  let digits: string;
  let prefix = '';
  switch (verb) {
    case 'd':
    case 'v':
      digits = String(abs);
      break;
    case 'b':
      digits = abs.toString(2);
      if (spec.sharp) prefix = '0b';
      break;
    case 'o':
    case 'O':
      digits = abs.toString(8);
      if (verb === 'O') prefix = '0o';
      else if (spec.sharp) prefix = 'octal';
      break;
    case 'x':
    case 'X':
      digits = abs.toString(16);
      if (spec.sharp) prefix = '0x';
      if (verb === 'X') {
        digits = digits.toUpperCase();
        prefix = prefix.toUpperCase();
      }
      break;
    case 'c':
      return runeOf(n);
    case 'q':
      return `'${goQuote(runeOf(n), spec.plus).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
    case 'U': {
      const u = `U+${n.toString(16).toUpperCase().padStart(Math.max(4, spec.prec ?? 0), '0')}`;
      const printable = n <= 0x10ffff && runeOf(n) !== '\ufffd' && !/[\p{C}\p{Z}]/u.test(runeOf(n));
      return spec.sharp && printable ? `${u} '${runeOf(n)}'` : u;
    }
    default:
      return undefined;
  }
  // Go prints nothing at all (no sign either) for a zero given precision 0.
  if (spec.prec === 0 && n === 0) return '';
  if (spec.prec !== undefined) digits = digits.padStart(spec.prec, '0');
  // %#o adds a leading 0 only when the digits have none yet.
  if (prefix === 'octal') prefix = digits.startsWith('0') ? '' : '0';
  return signed(prefix + digits, n < 0, spec);
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
    case 'x':
    case 'X':
      s = formatX(abs, spec.prec ?? -1, verb === 'X');
      break;
    case 'b':
      s = formatB(abs);
      break;
    default:
      return undefined;
  }
  if (spec.sharp && verb !== 'b') s = keepZeros(s, verb, spec.prec ?? -1);
  return signed(s, f < 0 || Object.is(f, -0), spec);
}

function formatString(s: string, verb: string, spec: Spec): string | undefined {
  const cut = spec.prec !== undefined ? [...s].slice(0, spec.prec).join('') : s;
  switch (verb) {
    case 'v':
    case 's':
      return cut;
    case 'q':
      if (spec.sharp && !cut.includes('`') && !/[\p{C}]/u.test(cut.replace(/\t/g, ''))) return `\`${cut}\``;
      return goQuote(cut, spec.plus);
    case 'x':
    case 'X': {
      // The precision counts input bytes here.
      const bytes = [...Buffer.from(s, 'utf8')].slice(0, spec.prec ?? Infinity);
      const hex = bytes.map((b) => (spec.sharp && (spec.space || b === bytes[0]) ? '0x' : '') + b.toString(16).padStart(2, '0'));
      const joined = spec.space ? hex.join(' ') : hex.join('');
      return verb === 'X' ? joined.toUpperCase() : joined;
    }
    default:
      return undefined;
  }
}

/** A wrong verb for the value: `%!d(string=hi)`, the value printed with %v and the same flags. */
function badVerb(verb: string, v: unknown, spec: Spec): string {
  const k = kindOf(v);
  if (k === 'nil' || k === 'invalid') return `%!${verb}(<nil>)`;
  return `%!${verb}(${typeName(v)}=${formatOne(v, 'v', spec)})`;
}

/** One operand under one verb; the width pads each leaf, inside lists and maps too, as Go's fmt does. */
/** `%#v`, Go-syntax representation, for the kinds template data has. */
function goSyntax(v: unknown, nested: boolean): string {
  switch (kindOf(v)) {
    case 'invalid':
    case 'nil':
      return nested ? 'interface {}(nil)' : '<nil>';
    case 'string':
      return goQuote(stringOf(v));
    case 'slice':
      return `[]interface {}{${(v as unknown[]).map((e) => goSyntax(e, true)).join(', ')}}`;
    case 'map':
      return `map[string]interface {}{${mapEntries(v)
        .map(([k, e]) => `${goQuote(k)}:${goSyntax(e, true)}`)
        .join(', ')}}`;
    default:
      return formatValue(v);
  }
}

function formatOne(v: unknown, verb: string, spec: Spec, nested = false): string {
  const isNil = v === null || v === undefined || v === MISSING;
  const goSyntaxKinds = ['string', 'slice', 'map', 'nil', 'invalid'];
  if (verb === 'v' && spec.sharpV && goSyntaxKinds.includes(kindOf(v)) && methodOf(v, 'Error') === undefined) {
    return pad(goSyntax(v, nested), spec, false);
  }
  if (nested && isNil) return pad('<nil>', spec, false);
  if (verb === 'T' && isNil) return pad('<nil>', spec, false);
  if (verb === 'T') return pad(formatString(typeName(v), 's', spec) as string, spec, false);
  if (['v', 's', 'q', 'x', 'X'].includes(verb)) {
    const viaMethod = methodText(v);
    if (viaMethod !== undefined) {
      const text = formatString(viaMethod, verb === 'v' ? 's' : verb, spec);
      if (text !== undefined) return pad(text, spec, false);
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
      if (text !== undefined) return pad(text, spec, true, spec.prec !== undefined && verb !== 'c' && verb !== 'q' && verb !== 'U');
      break;
    case 'float':
      text = formatFloat(numberOf(v), verb, spec);
      if (text !== undefined) return pad(text, spec, true);
      break;
    case 'string':
      text = formatString(stringOf(v), verb, spec);
      break;
    case 'slice':
      return `[${(v as unknown[]).map((e) => formatOne(e, verb, spec, true)).join(' ')}]`;
    case 'map':
      return `map[${mapEntries(v)
        .map(([k, e]) => `${formatOne(k, verb, spec, true)}:${formatOne(e, verb, spec, true)}`)
        .join(' ')}]`;
    case 'nil':
    case 'invalid':
      text = verb === 'v' ? '<nil>' : undefined;
      break;
    default:
      text = verb === 'v' ? formatValue(v, spec.plusV) : undefined;
  }
  return text === undefined ? badVerb(verb, v, spec) : pad(text, spec, false);
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
    const verb = m[4] ?? '';
    const spec: Spec = {
      minus: flags.includes('-'),
      plus: flags.includes('+') && verb !== 'v',
      plusV: flags.includes('+') && verb === 'v',
      sharp: flags.includes('#') && verb !== 'v',
      sharpV: flags.includes('#') && verb === 'v',
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
    out += formatOne(args[argIndex++], verb, spec);
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
