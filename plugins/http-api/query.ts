// Query parameters shared by the run endpoints (docs/http-api-contract.md §4.1, 4.2; docs/interface.md §5): repeatable,
// comma-separated filters, Go's ParseBool subset for `async`, and a Go-duration `timeout` that is
// capped at the configured maximum rather than refused.
import { formatGoDuration, parseGoDuration, splitFilterValues, type RunFilters } from '../../core/index.js';
import { httpErrors } from './errors.js';
import { checkContainerPatterns } from './pattern-filters.js';

export type Query = Readonly<Record<string, unknown>>;

/** Every value of a parameter given once, repeated, or not at all. */
export function queryValues(query: Query | undefined, name: string): string[] {
  const raw = query?.[name];
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).map(String);
}

/** The single value of a parameter; repeating it is as ambiguous as a bad value. */
export function querySingle(query: Query | undefined, name: string): string | undefined {
  const values = queryValues(query, name);
  if (values.length > 1) throw httpErrors.badQuery(name, 'given more than once');
  return values[0];
}

/** The run filters of a query; `container` patterns beyond their cost bounds are a 400 (pattern-filters.ts). */
export function runFilters(query: Query | undefined): RunFilters {
  const containers = splitFilterValues(queryValues(query, 'container'));
  checkContainerPatterns(containers);
  return {
    images: splitFilterValues(queryValues(query, 'image')),
    containers,
    hosts: splitFilterValues(queryValues(query, 'host')),
  };
}

const ASYNC_VALUES: Readonly<Record<string, boolean>> = { true: true, '1': true, false: false, '0': false };

export function parseAsync(query: Query | undefined): boolean {
  const value = querySingle(query, 'async');
  if (value === undefined) return false;
  const parsed = ASYNC_VALUES[value];
  if (parsed === undefined) throw httpErrors.badQuery('async', `expected true, false, 1 or 0, got ${JSON.stringify(value)}`);
  return parsed;
}

export interface RequestTimeout {
  readonly ms: number;
  /** Go's spelling of the effective timeout, for "… timed out after <d>". */
  readonly text: string;
}

/** The `timeout` parameter: a Go duration > 0, capped at `maxMs`; `maxMs` when absent. */
export function parseTimeout(query: Query | undefined, maxMs: number): RequestTimeout {
  const value = querySingle(query, 'timeout');
  if (value === undefined) return { ms: maxMs, text: formatGoDuration(maxMs) };
  let ms: number;
  try {
    ms = parseGoDuration(value);
  } catch (err) {
    throw httpErrors.badQuery('timeout', (err as Error).message);
  }
  if (!(ms > 0)) throw httpErrors.badQuery('timeout', `must be greater than 0, got ${JSON.stringify(value)}`);
  const capped = Math.min(ms, maxMs);
  return { ms: capped, text: formatGoDuration(capped) };
}

/** JSON schemas of the shared parameters, so the Swagger description lists them. */
export const filterQuerySchema = {
  image: {
    type: 'array',
    items: { type: 'string' },
    description: 'Image names, with or without tag; repeatable and comma-separated',
  },
  container: {
    type: 'array',
    items: { type: 'string' },
    description:
      'Container names or RE2 patterns anchored at both ends; repeatable and comma-separated. A pattern has at most 256 ' +
      'characters and repetition counts up to 100 (docs/http-api.md, pattern limits); beyond them 400',
  },
  host: {
    type: 'array',
    items: { type: 'string' },
    description: 'Engines, exactly as configured with --host (the records\' host); repeatable and comma-separated',
  },
} as const;

export function timeoutQuerySchema(maximum: string): Record<string, unknown> {
  return { type: 'string', description: `Go duration (30s, 2m, 10m) > 0; capped at ${maximum}` };
}
