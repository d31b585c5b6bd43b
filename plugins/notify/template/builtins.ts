// Go's predefined template functions (docs/notifications.md, "Templates"): comparison, logic, len,
// index, slice, print/printf/println and the escapers, with Go's errors for bad operands.
import { sprint, sprintf, sprintln } from './fmt.js';
import { MISSING, byteLength, kindOf, mapSize, numberOf, stringOf, truth, typeName, type Kind } from './values.js';

/** A parameter's type: `value` takes anything as is (Go's reflect.Value), `any` turns a missing value into nil. */
export type ParamType = 'value' | 'any' | 'string' | 'report';

export interface TemplateFunction {
  readonly params: readonly ParamType[];
  /** The type of the remaining arguments, for a variadic function. */
  readonly variadic?: ParamType;
  readonly call: (...args: unknown[]) => unknown;
}

export class FuncError extends Error {}

const fn = (params: ParamType[], call: (...args: unknown[]) => unknown, variadic?: ParamType): TemplateFunction =>
  variadic ? { params, variadic, call } : { params, call };

type Basic = 'bool' | 'int' | 'float' | 'string' | 'zero' | 'other';

function basic(v: unknown): Basic {
  const k: Kind = kindOf(v);
  if (k === 'invalid' || k === 'nil') return 'zero';
  if (k === 'bool' || k === 'int' || k === 'float' || k === 'string') return k;
  return 'other';
}

function comparable(v: unknown): boolean {
  const k = kindOf(v);
  return k !== 'slice' && k !== 'map' && k !== 'func';
}

export function eq(arg1: unknown, ...rest: unknown[]): boolean {
  if (basic(arg1) !== 'zero' && !comparable(arg1)) {
    throw new FuncError(`uncomparable type ${typeName(arg1)}: ${sprint([arg1])}`);
  }
  if (rest.length === 0) throw new FuncError('missing argument for comparison');
  const k1 = basic(arg1);
  for (const arg of rest) {
    const k2 = basic(arg);
    let same = false;
    if (k1 !== k2) {
      if (k1 !== 'zero' && k2 !== 'zero') throw new FuncError('incompatible types for comparison');
    } else if (k1 === 'zero') {
      same = true;
    } else if (k1 === 'int' || k1 === 'float') {
      same = numberOf(arg1) === numberOf(arg);
    } else if (k1 === 'string') {
      same = stringOf(arg1) === stringOf(arg);
    } else if (k1 === 'bool') {
      same = arg1 === arg;
    } else {
      if (!comparable(arg)) throw new FuncError(`non-comparable type ${sprint([arg])}: ${typeName(arg)}`);
      same = arg1 === arg;
    }
    if (same) return true;
  }
  return false;
}

export function lt(a: unknown, b: unknown): boolean {
  const k1 = basic(a);
  const k2 = basic(b);
  const orderable = (k: Basic) => k === 'int' || k === 'float' || k === 'string';
  if (!orderable(k1) || !orderable(k2)) throw new FuncError('invalid type for comparison');
  if (k1 !== k2) throw new FuncError('incompatible types for comparison');
  if (k1 === 'string') return stringOf(a) < stringOf(b);
  return numberOf(a) < numberOf(b);
}

function length(item: unknown): number {
  switch (kindOf(item)) {
    case 'string':
      return byteLength(stringOf(item));
    case 'slice':
      return (item as unknown[]).length;
    case 'map':
      return mapSize(item);
    case 'nil':
      throw new FuncError('len of nil pointer');
    case 'invalid':
      // What Go's reflection says about the invalid value of a missing key.
      throw new FuncError('reflect: call of reflect.Value.Type on zero Value');
    default:
      throw new FuncError(`len of type ${typeName(item)}`);
  }
}

function indexArg(v: unknown, cap: number, what: string): number {
  if (kindOf(v) !== 'int') throw new FuncError(`cannot index slice/array with type ${typeName(v)}`);
  const x = numberOf(v);
  if (x < 0 || x >= cap) throw new FuncError(`${what} out of range: ${x}`);
  return x;
}

function index(item: unknown, ...indexes: unknown[]): unknown {
  let cur = item;
  for (const ix of indexes) {
    switch (kindOf(cur)) {
      case 'invalid':
      case 'nil':
        throw new FuncError('index of untyped nil');
      case 'slice':
        cur = (cur as unknown[])[indexArg(ix, (cur as unknown[]).length, 'index')];
        break;
      case 'string': {
        const bytes = Buffer.from(stringOf(cur), 'utf8');
        cur = bytes[indexArg(ix, bytes.length, 'index')];
        break;
      }
      case 'map': {
        if (kindOf(ix) !== 'string') throw new FuncError(`value has type ${typeName(ix)}; should be string`);
        const key = stringOf(ix);
        const has = cur instanceof Map ? cur.has(key) : Object.prototype.hasOwnProperty.call(cur, key);
        cur = has ? (cur instanceof Map ? cur.get(key) : (cur as Record<string, unknown>)[key]) : null;
        break;
      }
      default:
        throw new FuncError(`can't index item of type ${typeName(cur)}`);
    }
  }
  return cur === undefined ? null : cur;
}

function slice(item: unknown, ...bounds: unknown[]): unknown {
  const k = kindOf(item);
  if (k === 'invalid' || k === 'nil') throw new FuncError('slice of untyped nil');
  if (bounds.length > 3) throw new FuncError(`too many slice indexes: ${bounds.length}`);
  if (k === 'string' && bounds.length === 3) throw new FuncError('cannot 3-index slice a string');
  if (k !== 'string' && k !== 'slice') throw new FuncError(`can't slice item of type ${typeName(item)}`);
  const s = k === 'string' ? Buffer.from(stringOf(item), 'utf8') : (item as unknown[]);
  const idx = [0, s.length];
  bounds.slice(0, 2).forEach((b, i) => (idx[i] = indexArg(b, s.length + 1, 'index')));
  if ((idx[0] as number) > (idx[1] as number)) throw new FuncError(`invalid slice index: ${idx[0]} > ${idx[1]}`);
  const out = s.slice(idx[0], idx[1]);
  return Buffer.isBuffer(out) ? out.toString('utf8') : out;
}

/** The text the escapers work on: a lone string as is, else fmt.Sprint of the arguments. */
function evalArgs(args: unknown[]): string {
  if (args.length === 1 && kindOf(args[0]) === 'string') return stringOf(args[0]);
  return sprint(args);
}

function html(...args: unknown[]): string {
  return evalArgs(args).replace(/[<>&'"\0]/g, (c) =>
    ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&#39;', '"': '&#34;', '\0': '\uFFFD' })[c] as string,
  );
}

function js(...args: unknown[]): string {
  let out = '';
  for (const ch of evalArgs(args)) {
    const cp = ch.codePointAt(0) as number;
    if (ch === '\\' || ch === "'" || ch === '"') out += `\\${ch}`;
    else if (ch === '<' || ch === '>' || ch === '&' || ch === '=' || (/[\p{C}\p{Z}]/u.test(ch) && ch !== ' ')) {
      out += `\\u${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    } else out += ch;
  }
  return out;
}

function urlquery(...args: unknown[]): string {
  return encodeURIComponent(evalArgs(args))
    .replace(/%20/g, '+')
    .replace(/[!'()*]/g, (c) => `%${(c.codePointAt(0) as number).toString(16).toUpperCase()}`);
}

/** `call`: template data holds no Go functions, so this only ever explains why it cannot call. */
function call(fn: unknown, ...args: unknown[]): unknown {
  const k = kindOf(fn);
  if (k === 'invalid' || k === 'nil') throw new FuncError('call of nil');
  if (typeof fn !== 'function') throw new FuncError(`non-function of type ${typeName(fn)}`);
  return (fn as (...a: unknown[]) => unknown)(...args);
}

/** and/or are evaluated lazily by the executor; these entries give their arity. */
export const builtins: Readonly<Record<string, TemplateFunction>> = {
  and: fn(['value'], (...a) => a.find((v) => !truth(v)) ?? a[a.length - 1], 'value'),
  or: fn(['value'], (...a) => a.find((v) => truth(v)) ?? a[a.length - 1], 'value'),
  not: fn(['value'], (v) => !truth(v)),
  len: fn(['value'], length),
  index: fn(['value'], index, 'value'),
  slice: fn(['value'], slice, 'value'),
  call: fn(['value'], call, 'value'),
  print: fn([], (...a) => sprint(a), 'any'),
  printf: fn(['string'], (f, ...a) => sprintf(f as string, a), 'any'),
  println: fn([], (...a) => sprintln(a), 'any'),
  html: fn([], html, 'any'),
  js: fn([], js, 'any'),
  urlquery: fn([], urlquery, 'any'),
  eq: fn(['value'], eq, 'value'),
  ne: fn(['value', 'value'], (a, b) => !eq(a, b)),
  lt: fn(['value', 'value'], (a, b) => lt(a, b)),
  le: fn(['value', 'value'], (a, b) => lt(a, b) || eq(a, b)),
  gt: fn(['value', 'value'], (a, b) => !(lt(a, b) || eq(a, b))),
  ge: fn(['value', 'value'], (a, b) => !lt(a, b)),
};

export { MISSING };
