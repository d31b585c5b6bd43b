// The option declarations' own schemas, checked without ajv. The builders of core/option.ts make a few
// small shapes (a type with bounds, a pattern, an enum, a list of them); loading ajv to check them cost
// about 5 MB of the idle process's 60 MB budget (docs/performance.md#memory). A schema using any other
// keyword (a plugin's `option.custom`) is left to ajv, which answers the same question for every schema.
import type { JsonSchema } from './option.js';

const KEYWORDS = new Set([
  'type', 'minimum', 'maximum', 'exclusiveMinimum', 'minLength', 'pattern', 'enum', 'items', 'minItems', 'uniqueItems', 'anyOf', 'description',
]);
const TYPES = new Set(['boolean', 'string', 'integer', 'number', 'array']);

/** Whether every keyword of the schema (and of its items) is one checked here. */
export function isSimpleSchema(schema: JsonSchema): boolean {
  for (const [keyword, value] of Object.entries(schema)) {
    if (!KEYWORDS.has(keyword)) return false;
    if (keyword === 'type' && !(typeof value === 'string' && TYPES.has(value))) return false;
    if (keyword === 'items' && !(isSchemaObject(value) && isSimpleSchema(value))) return false;
    if (keyword === 'enum' && !Array.isArray(value)) return false;
    if (keyword === 'anyOf' && !(Array.isArray(value) && value.every((branch) => isSchemaObject(branch) && isSimpleSchema(branch)))) return false;
  }
  return true;
}

function isSchemaObject(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(type: unknown, value: unknown): boolean {
  switch (type) {
    case 'boolean':
      return typeof value === 'boolean';
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'array':
      return Array.isArray(value);
    default:
      return true;
  }
}

const patterns = new Map<string, RegExp>();

function patternOf(source: string): RegExp {
  let re = patterns.get(source);
  if (!re) {
    // The `u` flag, as ajv compiles a schema's pattern.
    re = new RegExp(source, 'u');
    patterns.set(source, re);
  }
  return re;
}

/** What is wrong with the value, in ajv's words (`path must be integer`); empty when nothing is. */
export function simpleSchemaProblems(schema: JsonSchema, value: unknown, path: string): string[] {
  const { type, minimum, maximum, exclusiveMinimum, minLength, pattern, items, minItems, uniqueItems, anyOf } = schema;
  if (type !== undefined && !hasType(type, value)) return [`${path} must be ${String(type)}`];
  const problems: string[] = [];
  if (Array.isArray(anyOf)) {
    const branches = (anyOf as JsonSchema[]).map((branch) => simpleSchemaProblems(branch, value, path));
    if (branches.every((found) => found.length > 0)) problems.push(...branches.flat(), `${path} must match a schema in anyOf`);
  }
  if (schema['enum'] !== undefined && !(schema['enum'] as unknown[]).includes(value)) problems.push(`${path} must be equal to one of the allowed values`);
  if (typeof value === 'number') {
    if (typeof minimum === 'number' && value < minimum) problems.push(`${path} must be >= ${minimum}`);
    if (typeof maximum === 'number' && value > maximum) problems.push(`${path} must be <= ${maximum}`);
    if (typeof exclusiveMinimum === 'number' && value <= exclusiveMinimum) problems.push(`${path} must be > ${exclusiveMinimum}`);
  }
  if (typeof value === 'string') {
    if (typeof minLength === 'number' && [...value].length < minLength) problems.push(`${path} must NOT have fewer than ${minLength} characters`);
    if (typeof pattern === 'string' && !patternOf(pattern).test(value)) problems.push(`${path} must match pattern "${pattern}"`);
  }
  if (Array.isArray(value)) {
    if (typeof minItems === 'number' && value.length < minItems) problems.push(`${path} must NOT have fewer than ${minItems} items`);
    if (isSchemaObject(items)) value.forEach((item, index) => problems.push(...simpleSchemaProblems(items, item, `${path}/${index}`)));
    if (uniqueItems === true && new Set(value.map((item) => JSON.stringify(item))).size !== value.length) problems.push(`${path} must NOT have duplicate items`);
  }
  return problems;
}
