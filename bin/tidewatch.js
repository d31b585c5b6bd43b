#!/usr/bin/env node
// The `tidewatch` command. The TypeScript sources are compiled to dist/ by `npm ci` (the prepare script).
//
// V8 settings for a service that idles between checks, set here so that every way of starting it gets
// them: the image, `npx tidewatch`, `node bin/tidewatch.js`, a systemd unit (docs/performance.md#v8-settings).
// They must be set before anything else loads, so the service itself is imported below, dynamically.
const v8 = process.getBuiltinModule('node:v8');
const given = [...process.execArgv, ...(process.env['NODE_OPTIONS'] ?? '').split(/\s+/)].map((flag) => flag.replace(/^--([^=]*)/, (_, name) => `--${name.replace(/_/g, '-')}`));
const isGiven = (name) => given.some((flag) => flag === `--${name}` || flag.startsWith(`--${name}=`));
const settings = {
  // Optimise only what runs often: start-up code (option tables, plugin declarations, the module loader)
  // runs a few hundred times at most and otherwise got Maglev and TurboFan code, and the compilers' own
  // pages, for the life of the process. A check's per-target code still reaches both after a few checks.
  'invocation-count-for-maglev': 4000,
  'invocation-count-for-maglev-osr': 1000,
  'invocation-count-for-turbofan': 30000,
  'invocation-count-for-osr': 5000,
  // The young generation keeps its first size (1 MB a half) instead of growing to 16 MB a half. Only the
  // growth factor can be changed once V8 runs; a `--max-semi-space-size` given to node (the image and the
  // systemd example give 2) wins.
  ...(isGiven('max-semi-space-size') ? {} : { 'semi-space-growth-factor': 1 }),
};
for (const [name, value] of Object.entries(settings)) if (!isGiven(name)) v8.setFlagsFromString(`--${name}=${value}`);

const { main } = await import('../dist/server/main.js');
const code = await main({
  argv: process.argv.slice(2),
  env: process.env,
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
});
// Kept-alive sockets must not hold the process once main is done; stdout and stderr are
// synchronous for files and pipes on Linux, so nothing written is lost.
process.exit(code);
