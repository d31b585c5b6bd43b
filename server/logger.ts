// The process logger: pino, JSON by default (what log collectors want), pretty-ish single lines when
// asked; levels from --log-level, --debug and --trace as Watchtower had them.
import { pino, type Logger as PinoLogger } from 'pino';

export interface LoggerSettings {
  readonly level: string;
  readonly format: string;
  readonly debug: boolean;
  readonly trace: boolean;
}

function effectiveLevel(settings: LoggerSettings): string {
  if (settings.trace) return 'trace';
  if (settings.debug) return 'debug';
  return settings.level === 'panic' ? 'fatal' : settings.level;
}

export function createLogger(settings: LoggerSettings, destination: NodeJS.WritableStream = process.stdout): PinoLogger {
  const level = effectiveLevel(settings);
  const format = settings.format.toLowerCase();
  if (format === 'logfmt' || format === 'pretty') {
    // No pino-pretty transport: a worker thread per process is a lot for a line formatter.
    return pino(
      { level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime },
      {
        write(line: string) {
          const { level: lvl, time, msg, ...rest } = JSON.parse(line) as Record<string, unknown>;
          const fields = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v)}`);
          destination.write(`time=${String(time)} level=${pino.levels.labels[Number(lvl)] ?? String(lvl)} msg=${JSON.stringify(msg ?? '')} ${fields.join(' ')}\n`);
        },
      },
    );
  }
  return pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}
