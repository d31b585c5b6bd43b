#!/usr/bin/env node
// The `tidewatch` command. The TypeScript sources are compiled to dist/ by `npm ci` (the prepare script).
import { main } from '../dist/server/main.js';

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
