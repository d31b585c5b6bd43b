// The process logger: JSON lines by default (what log collectors want), pretty-ish single lines when
// asked; levels from --log-level, --debug and --trace as Watchtower had them.
//
// The lines are pino's (`{"level":30,"time":"<ISO>",…bindings,…fields,"msg":"…"}`, an `err` Error as
// `{type,message,stack}`), written by these few lines rather than by pino itself: pino loads its worker
// transport (worker_threads, node:assert, thread-stream) with the module, about 3 MB of an idle
// service's memory for a feature Tidewatch never uses (docs/performance.md#memory).
import type { Logger } from '../core/index.js';

export interface LoggerSettings {
  readonly level: string;
  readonly format: string;
  readonly debug: boolean;
  readonly trace: boolean;
}

/** pino's level numbers, which the JSON lines carry. */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;
type LevelName = keyof typeof LEVELS;
const LABELS = new Map<number, string>(Object.entries(LEVELS).map(([name, value]) => [value, name]));

function effectiveLevel(settings: LoggerSettings): number {
  if (settings.trace) return LEVELS.trace;
  if (settings.debug) return LEVELS.debug;
  const name = settings.level === 'panic' ? 'fatal' : settings.level;
  return LEVELS[name as LevelName] ?? LEVELS.info;
}

/** Errors as pino's standard serializer shows them; everything else as JSON has it. */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) return { type: value.constructor.name, message: value.message, stack: value.stack };
  return typeof value === 'bigint' ? value.toString() : value;
}

/** `{…}` without its braces, or '' for an empty object. */
function members(fields: object): string {
  const text = JSON.stringify(fields, replacer) as string | undefined;
  return text === undefined || text.length <= 2 ? '' : `,${text.slice(1, -1)}`;
}

type Write = (level: number, line: string) => void;

class LineLogger implements Logger {
  readonly #threshold: number;
  readonly #bindings: string;
  readonly #write: Write;

  constructor(threshold: number, bindings: string, write: Write) {
    this.#threshold = threshold;
    this.#bindings = bindings;
    this.#write = write;
  }

  #log(level: number, first: object | string, msg?: string): void {
    if (level < this.#threshold) return;
    let fields = '';
    let message = msg;
    if (typeof first === 'string') message = first;
    else if (first instanceof Error) {
      fields = members(replacer('err', first) as object);
      message ??= first.message;
    } else fields = members(first);
    const tail = message === undefined ? '' : `,"msg":${JSON.stringify(message)}`;
    this.#write(level, `{"level":${level},"time":"${new Date().toISOString()}"${this.#bindings}${fields}${tail}}\n`);
  }

  trace(first: object | string, msg?: string): void {
    this.#log(LEVELS.trace, first, msg);
  }
  debug(first: object | string, msg?: string): void {
    this.#log(LEVELS.debug, first, msg);
  }
  info(first: object | string, msg?: string): void {
    this.#log(LEVELS.info, first, msg);
  }
  warn(first: object | string, msg?: string): void {
    this.#log(LEVELS.warn, first, msg);
  }
  error(first: object | string, msg?: string): void {
    this.#log(LEVELS.error, first, msg);
  }
  child(bindings: Record<string, unknown>): Logger {
    return new LineLogger(this.#threshold, `${this.#bindings}${members(bindings)}`, this.#write);
  }
}

/** A JSON line as key=value pairs: time, level and msg first. */
function logfmt(level: number, line: string): string {
  const { level: _level, time, msg, ...rest } = JSON.parse(line) as Record<string, unknown>;
  const fields = Object.entries(rest).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
  return `time=${String(time)} level=${LABELS.get(level) ?? String(level)} msg=${JSON.stringify(msg ?? '')} ${fields.join(' ')}\n`;
}

export function createLogger(settings: LoggerSettings, destination: NodeJS.WritableStream = process.stdout): Logger {
  const format = settings.format.toLowerCase();
  const write: Write =
    format === 'logfmt' || format === 'pretty' ? (level, line) => destination.write(logfmt(level, line)) : (_level, line) => destination.write(line);
  return new LineLogger(effectiveLevel(settings), '', write);
}
