// How JavaScript values stand for Go values inside templates (docs/notifications.md, "Templates"):
// an integral number is an int, any other number a float64, a plain object a map[string]any, an array a
// slice, an instance of GoStruct a struct whose capitalised methods are Go methods, a NamedString a named
// string type (such as ImageID) with methods, and MISSING the "no value" of a missing map key.

/** The invalid value: a missing map key or field of nil data; it prints as `<no value>`. */
export const MISSING: unique symbol = Symbol('no value');

/** A nil map (`map[string]any(nil)`): empty when read or printed (`map[]`), `null` in JSON. */
export const NIL_MAP: Readonly<Record<string, never>> = Object.freeze(Object.create(null) as Record<string, never>);

/**
 * A nil interface value of a struct field with a named interface type (Watchtower's `.Report` without a
 * report): false and empty like nil, but `{{.Report}}` prints `<nil>` where a nil `any` prints `<no value>`.
 */
export class TypedNil {
  constructor(readonly goType: string) {}
}

/** An int that is not from the data: a constant of the template text or a function's result (`len`). */
export class GoInt {
  constructor(
    readonly value: number,
    readonly goType: 'int' | 'uint8' = 'int',
  ) {}
}

/** A float64 whose value happens to be integral (the constant `1.0`): Go keeps it a float. */
export class GoFloat {
  constructor(readonly value: number) {}
}

/** A Go struct: own enumerable fields in declaration order, methods on the prototype. */
export abstract class GoStruct {
  /** The Go type name, for error messages and `%T`. */
  abstract readonly goType: string;
  /** Fields whose Go type is a named interface (field → type name): nil there is a TypedNil. */
  static readonly interfaceFields: Readonly<Record<string, string>> = {};
}

/** A named Go string type (`type ImageID string`): it compares and prints as its string. */
export abstract class NamedString {
  abstract readonly goType: string;
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type Kind = 'invalid' | 'nil' | 'bool' | 'int' | 'float' | 'string' | 'slice' | 'map' | 'struct' | 'func';

export function kindOf(v: unknown): Kind {
  if (v === MISSING) return 'invalid';
  if (v === null || v === undefined || v instanceof TypedNil) return 'nil';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'number':
      // An integral number an int64 can hold is an int (as Watchtower decodes log fields), else a float64.
      return Number.isInteger(v) && Math.abs(v as number) < 2 ** 63 ? 'int' : 'float';
    case 'bigint':
      return 'int';
    case 'string':
      return 'string';
    case 'function':
      return 'func';
  }
  if (v instanceof GoFloat) return 'float';
  if (v instanceof GoInt) return 'int';
  if (v instanceof NamedString) return 'string';
  if (Array.isArray(v)) return 'slice';
  if (v instanceof Map) return 'map';
  if (v instanceof GoStruct) return 'struct';
  const proto: unknown = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null) return 'map';
  return 'struct';
}

/** Go's type name of a value, for `%T`, `%!d(type=value)` and error messages. */
export function typeName(v: unknown): string {
  if (v instanceof GoStruct || v instanceof NamedString || v instanceof GoInt) return v.goType;
  if (v instanceof TypedNil) return v.goType;
  switch (kindOf(v)) {
    case 'invalid':
      return '<nil>';
    case 'nil':
      return '<nil>';
    case 'bool':
      return 'bool';
    case 'int':
      return 'int64';
    case 'float':
      return 'float64';
    case 'string':
      return 'string';
    case 'slice':
      return '[]interface {}';
    case 'map':
      return 'map[string]interface {}';
    case 'func':
      return 'func';
    default:
      return (v as object).constructor?.name ?? 'struct';
  }
}

/** The number inside an int or float value. */
export function numberOf(v: unknown): number {
  if (v instanceof GoFloat || v instanceof GoInt) return v.value;
  if (typeof v === 'bigint') return Number(v);
  return v as number;
}

/** The string inside a string-kinded value. */
export function stringOf(v: unknown): string {
  return v instanceof NamedString ? v.value : (v as string);
}

/** Go's byte length of a string (len counts UTF-8 bytes). */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export function mapEntries(v: unknown): [string, unknown][] {
  const entries: [string, unknown][] = v instanceof Map ? [...v.entries()] : Object.entries(v as object);
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

export function mapSize(v: unknown): number {
  return v instanceof Map ? v.size : Object.keys(v as object).length;
}

/** Go's truth: false, 0, nil, and empty strings, slices and maps are false; structs are true. */
export function truth(v: unknown): boolean {
  switch (kindOf(v)) {
    case 'invalid':
    case 'nil':
      return false;
    case 'bool':
      return v as boolean;
    case 'int':
    case 'float':
      return numberOf(v) !== 0;
    case 'string':
      return stringOf(v).length > 0;
    case 'slice':
      return (v as unknown[]).length > 0;
    case 'map':
      return mapSize(v) > 0;
    default:
      return true;
  }
}

/** A zero-argument method of a value (Go methods are capitalised), or undefined. */
export function methodOf(v: unknown, name: string): ((...args: unknown[]) => unknown) | undefined {
  if (v === null || typeof v !== 'object' || !/^\p{Lu}/u.test(name)) return undefined;
  if (!(v instanceof GoStruct || v instanceof NamedString)) return undefined;
  if (Object.prototype.hasOwnProperty.call(v, name)) return undefined;
  const m: unknown = (v as unknown as Record<string, unknown>)[name];
  return typeof m === 'function' ? (m as (...args: unknown[]) => unknown).bind(v) : undefined;
}

/** Own exported fields of a struct in declaration order. */
export function structFields(v: object, exportedOnly: boolean): [string, unknown][] {
  return Object.entries(v).filter(([k]) => k !== 'goType' && (!exportedOnly || /^\p{Lu}/u.test(k)));
}
