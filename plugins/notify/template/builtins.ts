// Go's predefined template functions (docs/notifications.md, "Templates"): comparison, logic, len,
// index, slice, print/printf/println and the escapers, with Go's errors for bad operands.
import { sprint, sprintf, sprintln } from './fmt.js';
import { GoInt, MISSING, NIL_MAP, TypedNil, byteLength, kindOf, mapSize, numberOf, stringOf, truth, typeName, type Kind } from './values.js';

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

type Basic = 'bool' | 'int' | 'float' | 'string' | 'invalid';

/** Go's basicKind: anything but bool, numbers and strings (and the zero value) is "invalid". */
function basic(v: unknown): Basic {
  const k: Kind = kindOf(v);
  return k === 'bool' || k === 'int' || k === 'float' || k === 'string' ? k : 'invalid';
}

/** The zero reflect.Value: a missing key, or a nil interface once Go has looked inside it. */
const isZero = (v: unknown) => v === MISSING || v === null || v === undefined || v instanceof TypedNil;
const isNilValue = (v: unknown) => isZero(v) || v === NIL_MAP;
const reflectKind = (v: unknown): Kind => (isZero(v) ? 'invalid' : kindOf(v));

/** Go's eq, as text/template defines it: basic kinds compare by value, nil compares with anything. */
export function eq(arg1: unknown, ...rest: unknown[]): boolean {
  if (rest.length === 0) throw new FuncError('missing argument for comparison');
  const k1 = basic(arg1);
  for (const arg of rest) {
    const k2 = basic(arg);
    let same = false;
    if (k1 !== k2) {
      if (!isZero(arg1) && !isZero(arg)) throw new FuncError('incompatible types for comparison');
    } else if (k1 === 'int' || k1 === 'float') {
      same = numberOf(arg1) === numberOf(arg);
    } else if (k1 === 'string') {
      same = stringOf(arg1) === stringOf(arg);
    } else if (k1 === 'bool') {
      same = arg1 === arg;
    } else {
      const r1 = reflectKind(arg1);
      const r2 = reflectKind(arg);
      if (r1 !== r2 && r1 !== 'invalid' && r2 !== 'invalid') {
        throw new FuncError(
          `non-comparable types ${sprintf('%s', [arg1])}: ${typeName(arg1)}, ${typeName(arg)}: ${sprint([arg])}`,
        );
      }
      if (isNilValue(arg1) || isNilValue(arg)) {
        same = isNilValue(arg1) === isNilValue(arg);
      } else {
        if (r2 === 'slice' || r2 === 'map' || r2 === 'func') {
          throw new FuncError(`non-comparable type ${sprintf('%s', [arg])}: ${typeName(arg)}`);
        }
        same = arg1 === arg;
      }
    }
    if (same) return true;
  }
  return false;
}

export function lt(a: unknown, b: unknown): boolean {
  const k1 = basic(a);
  const k2 = basic(b);
  if (k1 === 'invalid' || k2 === 'invalid') throw new FuncError('invalid type for comparison');
  if (k1 !== k2) throw new FuncError('incompatible types for comparison');
  if (k1 === 'bool') throw new FuncError('invalid type for comparison');
  if (k1 === 'string') return stringOf(a) < stringOf(b);
  return numberOf(a) < numberOf(b);
}

function length(item: unknown): GoInt {
  return new GoInt(lengthOf(item));
}

function lengthOf(item: unknown): number {
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

/** Go's indexArg: an int index up to and including cap (the element access itself checks the length). */
function indexArg(v: unknown, cap: number): number {
  if (isZero(v)) throw new FuncError('cannot index slice/array with nil');
  if (kindOf(v) !== 'int') throw new FuncError(`cannot index slice/array with type ${typeName(v)}`);
  const x = numberOf(v);
  if (x < 0 || x > cap) throw new FuncError(`index out of range: ${x}`);
  return x;
}

function index(item: unknown, ...indexes: unknown[]): unknown {
  if (isZero(item)) throw new FuncError('index of untyped nil');
  let cur: unknown = item;
  for (const ix of indexes) {
    switch (kindOf(cur)) {
      case 'slice': {
        const list = cur as unknown[];
        const x = indexArg(ix, list.length);
        if (x === list.length) throw new FuncError('reflect: slice index out of range');
        cur = list[x] ?? null;
        break;
      }
      case 'string': {
        const bytes = Buffer.from(stringOf(cur), 'utf8');
        const x = indexArg(ix, bytes.length);
        if (x === bytes.length) throw new FuncError('reflect: string index out of range');
        cur = new GoInt(bytes[x] as number, 'uint8');
        break;
      }
      case 'map': {
        if (isZero(ix)) throw new FuncError('value is nil; should be of type string');
        if (typeof ix !== 'string') throw new FuncError(`value has type ${typeName(ix)}; should be string`);
        const m = cur as Record<string, unknown> | Map<string, unknown>;
        // A missing key gives the map's zero element: a nil interface.
        cur = m instanceof Map ? (m.get(ix) ?? null) : Object.prototype.hasOwnProperty.call(m, ix) ? (m[ix] ?? null) : null;
        break;
      }
      case 'nil':
        throw new FuncError('index of nil pointer');
      default:
        throw new FuncError(`can't index item of type ${typeName(cur)}`);
    }
  }
  return cur;
}

function slice(item: unknown, ...bounds: unknown[]): unknown {
  if (isZero(item)) throw new FuncError('slice of untyped nil');
  const k = kindOf(item);
  if (bounds.length > 3) throw new FuncError(`too many slice indexes: ${bounds.length}`);
  if (k === 'string' && bounds.length === 3) throw new FuncError('cannot 3-index slice a string');
  if (k !== 'string' && k !== 'slice') throw new FuncError(`can't slice item of type ${typeName(item)}`);
  const s = k === 'string' ? Buffer.from(stringOf(item), 'utf8') : (item as unknown[]);
  const idx = [0, s.length, s.length];
  bounds.forEach((b, i) => {
    // Unlike index, slice takes its indexes as they come: a number from the data is still an interface{}.
    if (typeof b === 'number' || b === null) throw new FuncError('cannot index slice/array with type interface {}');
    idx[i] = indexArg(b, s.length);
  });
  const [i, j, m] = idx as [number, number, number];
  if (i > j) throw new FuncError(`invalid slice index: ${i} > ${j}`);
  if (bounds.length === 3 && j > m) throw new FuncError(`invalid slice index: ${j} > ${m}`);
  const out = s.slice(i, j);
  return Buffer.isBuffer(out) ? out.toString('utf8') : out;
}

/** The text the escapers work on: a lone string as is, else fmt.Sprint of the arguments. */
function evalArgs(args: unknown[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  // Like Go, a nil argument becomes the text `<no value>` before fmt.Sprint sees it.
  return sprint(args.map((a) => (isZero(a) ? '<no value>' : a)));
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
