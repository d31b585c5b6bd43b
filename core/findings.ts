// The findings slot: what gates and enrichers found out about a candidate, keyed by the plugin that knows it
// (docs/plugins.md#findings). A finding is declared the way a service is, a key plus the type of its value
// (`defineFinding<T>(key, spec)`), and written onto the stale answer with `withFinding`. Each entry keeps the
// one line its declaration makes of it, computed when it is written, so that every display (the check
// record, /details, notifications, metrics, MQTT, the dashboard) can show a finding it knows nothing of by
// its key and that line. The slot is internal: the HTTP API keeps the field names its docs fix and maps the
// findings it documents back onto them.
import { TidewatchError } from './errors.js';
import type { JsonSchema } from './option.js';

/** How a finding reads, given once where it is declared. */
export interface FindingSpec<T> {
  /** One line for the user (no line break, at most 200 characters are kept): what the finding says. */
  summary(value: T): string;
  /** The value's JSON schema, for documentation and for plugins that check what they read. */
  readonly schema?: JsonSchema;
}

/** A typed key: `defineFinding<VulnerabilityReport>('example.vulnerabilities', { summary })`. */
export interface FindingKey<T> extends FindingSpec<T> {
  /** The key, unique across plugins: the plugin's name, or its name and a dot and a word. */
  readonly key: string;
  /** Never set; carries `T` so the writer and every reader agree on the type. */
  readonly __type?: (value: T) => T;
}

/** One finding as the slot holds it: its value and the one line made of it when it was written. */
export interface Finding {
  readonly value: unknown;
  readonly summary: string;
}

/** The slot: findings by key. Absent, or empty, when nobody found anything. */
export type Findings = Readonly<Record<string, Finding>>;

/** Anything that carries the slot: the stale answer (`Staleness`), an event. */
export interface HasFindings {
  readonly findings?: Findings;
}

const KEY = /^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)*$/;
const MAX_SUMMARY = 200;

export function defineFinding<T>(key: string, spec: FindingSpec<T>): FindingKey<T> {
  // A key is a name in displays and in the check record's `findings`: keep it a plain word, never markup.
  if (!KEY.test(key)) throw new TidewatchError('TW_ERR_PLUGIN_DEFINITION', `finding key ${JSON.stringify(key).slice(0, 80)} must be lower-case words joined by dots`, 500);
  return Object.freeze({ key, summary: spec.summary, ...(spec.schema ? { schema: spec.schema } : {}) });
}

/** One line, whatever the plugin's summary returned: line breaks become spaces, then it is cut at 200 characters. */
function oneLine(text: string): string {
  const line = text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
  return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1)}…` : line;
}

/** A copy of `holder` with `value` as its finding under `key` (replacing an earlier one of the same key). */
export function withFinding<H extends HasFindings, T>(holder: H, key: FindingKey<T>, value: NoInfer<T>): H {
  const entry: Finding = { value, summary: oneLine(key.summary(value)) };
  return { ...holder, findings: { ...holder.findings, [key.key]: entry } };
}

/** The finding under `key`, typed, or undefined when none was written. */
export function readFinding<T>(holder: HasFindings | undefined, key: FindingKey<T>): T | undefined {
  return holder?.findings?.[key.key]?.value as T | undefined;
}

/**
 * Every finding's key and line, in the order written, leaving out the keys in `except` (a display that
 * shows those under field names of its own, as the HTTP API does for the findings its docs name).
 */
export function findingLines(holder: HasFindings | undefined, except?: ReadonlySet<string>): { key: string; summary: string }[] {
  const lines: { key: string; summary: string }[] = [];
  for (const [key, finding] of Object.entries(holder?.findings ?? {})) {
    if (!except?.has(key)) lines.push({ key, summary: finding.summary });
  }
  return lines;
}
