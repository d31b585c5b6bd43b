// The Git staleness source; the plugin itself lives in plugin.ts, cheap to load (declarations only).
export * from './plugin.js';
export { isNoPull, currentCommitOf } from './source.js';
export { gitPlugin as default } from './plugin.js';
