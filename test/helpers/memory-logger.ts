// A Logger that keeps every line, at every level with its bindings, for tests to assert on: the
// structured fields (`obj`, `msg`) and the whole line as JSON text to search.
import type { Logger } from '../../core/index.js';

export interface LogLine {
  readonly level: string;
  readonly obj: Record<string, unknown>;
  readonly msg: string | undefined;
  readonly text: string;
}

export function memoryLogger(lines: LogLine[] = [], bindings: Record<string, unknown> = {}): Logger & { lines: LogLine[] } {
  const at =
    (level: string) =>
    (objOrMsg: object | string, msg?: string): void => {
      const obj = typeof objOrMsg === 'string' ? { ...bindings } : { ...bindings, ...(objOrMsg as Record<string, unknown>) };
      const message = typeof objOrMsg === 'string' ? objOrMsg : msg;
      lines.push({ level, obj, msg: message, text: JSON.stringify({ ...obj, msg: message }) });
    };
  return {
    lines,
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    child: (more: Record<string, unknown>) => memoryLogger(lines, { ...bindings, ...more }),
  };
}
