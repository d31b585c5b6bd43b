// Go's json.MarshalIndent(v, "", "  ") for template values, as `ToJSON` uses it (docs/notifications.md):
// maps with sorted keys, structs with their exported fields in order, HTML-safe string escapes.
import { NIL_MAP, kindOf, mapEntries, methodOf, numberOf, stringOf, structFields } from './values.js';

/** A float as Go's encoding/json writes it. */
function jsonFloat(f: number): string {
  if (!Number.isFinite(f)) throw new RangeError(`json: unsupported value: ${f}`);
  const abs = Math.abs(f);
  if (abs !== 0 && (abs < 1e-6 || abs >= 1e21)) {
    return f.toExponential().replace(/e([+-])(\d)$/, 'e$1$2');
  }
  if (Number.isInteger(f)) return f.toFixed(0);
  return String(f);
}

export function jsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) as number;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    // Go 1.22 and later (Watchtower's toolchain) write these two short escapes too.
    else if (ch === '\b') out += '\\b';
    else if (ch === '\f') out += '\\f';
    else if (cp < 0x20 || ch === '<' || ch === '>' || ch === '&' || cp === 0x2028 || cp === 0x2029) {
      out += `\\u${cp.toString(16).padStart(4, '0')}`;
    } else out += ch;
  }
  return `${out}"`;
}

/** An object whose keys keep their order, as a Go struct with `json:"…"` tags does. */
export class JSONObject {
  constructor(readonly entries: [string, unknown][]) {}
}

function encode(v: unknown, indent: string): string {
  if (v instanceof JSONObject) return encodeEntries(v.entries, indent);
  if (v === NIL_MAP) return 'null';
  const marshal = methodOf(v, 'MarshalJSON');
  if (marshal) return encode(marshal(), indent);
  const inner = `${indent}  `;
  switch (kindOf(v)) {
    case 'invalid':
    case 'nil':
      return 'null';
    case 'bool':
      return String(v);
    case 'int':
      return String(numberOf(v));
    case 'float':
      return jsonFloat(numberOf(v));
    case 'string':
      return jsonString(stringOf(v));
    case 'slice': {
      const items = v as unknown[];
      if (items.length === 0) return '[]';
      return `[\n${items.map((e) => inner + encode(e, inner)).join(',\n')}\n${indent}]`;
    }
    case 'func':
      throw new TypeError('json: unsupported type: func');
    default: {
      return encodeEntries(kindOf(v) === 'map' ? mapEntries(v) : structFields(v as object, true), indent);
    }
  }
}

function encodeEntries(entries: [string, unknown][], indent: string): string {
  const inner = `${indent}  `;
  if (entries.length === 0) return '{}';
  return `{\n${entries.map(([k, e]) => `${inner}${jsonString(k)}: ${encode(e, inner)}`).join(',\n')}\n${indent}}`;
}

export function marshalIndent(v: unknown): string {
  return encode(v, '');
}
