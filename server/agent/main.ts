// The entry of `tidewatch agent` (bin/tidewatch.js imports it instead of server/main.ts for the agent): its
// options from the lean table (./options.ts) and the agent started, without loading the core's engine or
// any plugin's declarations besides the few the agent reads (docs/fleet.md#footprint). Whatever the lean
// table leaves to the full one goes to server/main.ts whole, so the behaviour is the service's own: the
// same values, the same exit-2 lines, `--help`, `check-config agent`.
import { ConfigError } from '../../core/errors.js';
import type { MainIo } from '../main.js';
import { runAgent } from './index.js';
import { leanAgentSettings } from './options.js';

/** `io.argv` as server/main.ts takes it: `agent` first. */
export async function main(io: MainIo): Promise<number> {
  const settings = io.argv[0] === 'agent' ? leanAgentSettings({ argv: io.argv.slice(1), env: io.env, cwd: io.cwd }) : undefined;
  if (settings === undefined) {
    const full = await import('../main.js');
    return full.main(io);
  }
  try {
    return await runAgent(io, settings);
  } catch (err) {
    // runAgent's own checks (--controller and --data-dir required, one --host), as server/main.ts prints them.
    if (err instanceof ConfigError) {
      io.stderr.write(`tidewatch: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
