// Loading a plugin's code at its first use (docs/plugins.md#loading-code-at-first-use): the one way the built-in
// plugins defer what an idle service does not run (the Docker runtime's replacement path, the gates and routes of
// plugins no option turned on). The declaration (definePlugin, options) stays loaded; the taps, services and
// routes are made in `apply` as before, and the code behind them is imported the first time one is used.
// Imports nothing: a plugin's own modules are what it loads.

/** A loader that imports once and hands every caller the same module; `loaded()` is it once it is in. */
export interface FirstUse<T> {
  (): Promise<T>;
  /** The module when a call has finished loading it, else undefined (for a synchronous tap that may skip it). */
  loaded(): T | undefined;
}

/**
 * `load` (an `import()` of the plugin's own module) runs at the first call; every later call gets the same
 * promise. A failed import is not remembered: each caller sees the import's own error, and the next use tries
 * again. An error thrown by the loaded code itself is the caller's, exactly as with a static import.
 */
export function firstUse<T>(load: () => Promise<T>): FirstUse<T> {
  let loading: Promise<T> | undefined;
  let module: T | undefined;
  const use = (): Promise<T> =>
    (loading ??= load().then(
      (m) => (module = m),
      (err: unknown) => {
        loading = undefined;
        throw err;
      },
    ));
  return Object.assign(use, { loaded: () => module });
}
