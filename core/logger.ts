// A logger that drops everything: the default when an embedder passes none.
import type { Logger } from './types.js';

const noop = () => undefined;

export const silentLogger: Logger = Object.freeze({
  trace: noop,
  debug: noop,
  info: noop,
  warn: noop,
  error: noop,
  child: () => silentLogger,
});
