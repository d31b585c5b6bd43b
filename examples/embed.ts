// Embedding the core in your own tooling: the same plugins the service loads, driven from code.
// Run from the repository (its `.js` imports of the `.ts` sources need the loader the tests use):
//   DOCKER_HOST=unix:///var/run/docker.sock TS_NODE_TRANSPILE_ONLY=1 \
//     node --import ./node_modules/@tapjs/typescript/dist/esm/import.mjs examples/embed.ts
// In your own project, import from 'tidewatch' and compile it with the rest of your code.
import { createTidewatch, type TidewatchPlugin } from '../core/index.js';
import { dockerPlugin } from '../plugins/docker/index.js';
import { registryPlugin } from '../plugins/registry/index.js';

// A plugin can be as small as one tap: here, print every event of the bus.
const printEvents: TidewatchPlugin<object> = {
  name: 'print-events',
  apply(core) {
    core.hooks.event.tap('print-events', (event) => console.log(event.type, JSON.stringify(event.data)));
  },
};

const tw = await createTidewatch({
  plugins: [
    { plugin: dockerPlugin, options: { host: process.env['DOCKER_HOST'] ?? 'unix:///var/run/docker.sock' } },
    { plugin: registryPlugin, options: {} },
    printEvents,
  ],
});

const report = await tw.check();
for (const { target, staleness } of report.results) {
  console.log(`${target.name}\t${target.image}\t${staleness.error ?? (staleness.stale ? 'update available' : 'up to date')}`);
}
await tw.close();
