#!/usr/bin/env node
// The `tidewatch` command. The TypeScript sources are compiled to dist/ by `npm ci` (the prepare script).
//
// V8 settings for a service that idles between checks, set here and only here, so that every way of
// starting it gets the same ones: the image, `npx tidewatch`, `node bin/tidewatch.js`, a systemd unit
// (docs/performance.md#v8-settings). They must be set before anything else loads, so the service itself
// is imported below, dynamically. A flag given to node (its command line or NODE_OPTIONS) wins.
// Node 24 releases before node:sqlite was marked stable print `ExperimentalWarning: SQLite is an experimental
// feature` to stderr when the state store opens (docs/state.md#the-database); the service's output is its log,
// so that one warning is dropped here. Every other warning is printed as Node prints it.
const emitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const type = typeof rest[0] === 'object' && rest[0] !== null ? rest[0].type : rest[0];
  if (type === 'ExperimentalWarning' && /\bSQLite\b/.test(String(warning?.message ?? warning))) return;
  return emitWarning.call(process, warning, ...rest);
};
const v8 = process.getBuiltinModule('node:v8');
const given = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)].map((flag) => flag.replace(/^--(?:no-)?([^=]*)/, (_, name) => `--${name.replace(/_/g, '-')}`));
const isGiven = (name) => given.some((flag) => flag === `--${name}` || flag.startsWith(`--${name}=`));
// An agent (`tidewatch agent`) runs without V8's JIT (--jitless: the interpreter alone, no baseline or
// optimized code, no WebAssembly). It only passes bytes between its controller and its engine, and the
// JIT's code and its code pages cost an idle agent 3 MB (docs/fleet.md#footprint). V8 reads the flag only
// when it starts, so the agent re-executes itself once with it, before loading anything: process.execve
// keeps the process id (PID 1 in the image), the standard streams and the environment. A --jitless or
// --no-jitless given to node wins (and is what the re-executed process sees, so it runs once).
const agentMode = process.argv[2] === 'agent';
if (agentMode && !isGiven('jitless') && process.platform !== 'win32' && typeof process.execve === 'function') {
  // With it, no background tasks (an idle agent's heap is a few MB: its collections run on the main thread)
  // and one worker thread for V8's platform instead of four: 0.5 MB more (docs/fleet.md#footprint).
  const flags = ['--jitless', ...(isGiven('single-threaded') ? [] : ['--single-threaded']), ...(isGiven('v8-pool-size') ? [] : ['--v8-pool-size=1'])];
  process.execve(process.execPath, [process.execPath, ...flags, ...process.execArgv, ...process.argv.slice(1)], process.env);
}
const settings = {
  // The young generation keeps its first size (1 MB a half) instead of growing to 16 MB a half. V8 reads
  // --max-semi-space-size only when it creates the heap; the growth factor can still be changed here.
  ...(isGiven('max-semi-space-size') ? {} : { 'semi-space-growth-factor': 1 }),
};
for (const [name, value] of Object.entries(settings)) if (!isGiven(name)) v8.setFlagsFromString(`--${name}=${value}`);
// Maglev and TurboFan stay off while the service starts: start-up code (the module loader, option tables,
// plugin declarations) runs hot enough to be optimized once, and that alone keeps megabytes of the
// compilers' own code resident for the life of an otherwise idle process. They are back on before the
// first run, so a check's code is optimized as before.
const offDuringStartup = ['maglev', 'turbofan'].filter((name) => !isGiven(name));
for (const name of offDuringStartup) v8.setFlagsFromString(`--no-${name}`);
// A few full collections once the service has gone idle after starting: start-up leaves garbage and the
// bytecode of code that never runs again (option tables, plugin declarations, the module loader's work),
// which V8 flushes only once it has aged through several full collections; left to the memory reducer,
// that takes far longer than a check interval. About 3 MB less idle RSS (docs/performance.md#v8-settings).
// `--expose-gc` must be set before the first context is made for `gc` to exist at all; it is reached
// through a context of its own, never as a global of the service's.
const SETTLE_AFTER_MS = 5_000;
const SETTLE_COLLECTIONS = 8;
if (!isGiven('expose-gc')) v8.setFlagsFromString('--expose-gc');
const settle = () => {
  const collect = process.getBuiltinModule('node:vm').runInNewContext('gc');
  for (let i = 0; i < SETTLE_COLLECTIONS; i++) collect();
};
// An agent (`tidewatch agent`) keeps them off for good: it only passes bytes between its controller and
// its engine, and the compilers' code, once they have run, stays resident: 0.4 MB less in an idle agent
// after a check through it (docs/fleet.md#footprint); under --jitless they never run at all.
const afterStartup = () => {
  if (!agentMode) for (const name of offDuringStartup) v8.setFlagsFromString(`--${name}`);
  setTimeout(settle, SETTLE_AFTER_MS).unref();
};

// An agent starts from its own entry, which reads its options without loading every plugin's declarations
// (docs/fleet.md#footprint) and hands anything else to the service's entry.
const { main } = await import(agentMode ? '../dist/server/agent/main.js' : '../dist/server/main.js');
const code = await main({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
  onStarted: afterStartup,
});
// Kept-alive sockets must not hold the process once main is done; stdout and stderr are
// synchronous for files and pipes on Linux, so nothing written is lost.
process.exit(code);
