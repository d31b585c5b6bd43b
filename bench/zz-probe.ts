import { mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import Docker from 'dockerode';
import { testEnv } from '../test/helpers/env.js';
import { pullImage, pushImage, removeContainers, testPrefix } from '../test/helpers/images.js';
import { startService } from '../test/helpers/service.js';
const env = (await testEnv())!;
const sockets = [env.dockerSocket, env.docker26Socket, env.docker28Socket, env.docker28StoreSocket].filter((s): s is string => typeof s === 'string');
const engines = sockets.map((socketPath) => new Docker({ socketPath }));
const prefix = testPrefix('sfprobe');
const image = await pushImage({ registry: env.registry, repo: `${prefix}/app`, marker: 'startup' });
await Promise.all(engines.map(async (engine) => { await pullImage(engine, image.ref); for (let i = 0; i < 50; i++) await engine.createContainer({ name: `${prefix}-${i}`, Image: image.ref, Cmd: ['true'] }); }));
const dir = join(env.dockerSocket, '..', `probe-${prefix}`);
await mkdir(dir, { recursive: true });
for (let i = 0; i < 100; i++) await symlink(sockets[i % 4]!, join(dir, `h${i}.sock`));
try {
  for (const n of [1, 100]) {
    const t0 = performance.now();
    const s = await startService(['--host', Array.from({ length: n }, (_, i) => `unix://${join(dir, `h${i}.sock`)}`).join(','), '--include-stopped', '--monitor-only', '--interval', '86400', '--no-startup-message', '--http-api-endpoints', 'metrics', '--http-api-token', 'bench-startup-token-0123456789', `${prefix}-.*`], n === 100 ? { NODE_OPTIONS: '--cpu-prof --cpu-prof-dir=/tmp/sf/prof' } : {}, 120000);
    console.log('listening', (performance.now() - t0).toFixed(0));
    for (const p of ['/livez', '/livez', '/readyz']) { const a = performance.now(); const r = await fetch(`${s.url}${p}`); await r.text(); console.log(p, 'at', (a - t0).toFixed(0), 'took', (performance.now() - a).toFixed(0), r.status); }
    let started = false;
    for (let k = 0; k < 40; k++) {
      const a = performance.now();
      const res = await fetch(`${s.url}/readyz`);
      const body = await res.text();
      const su = (await fetch(`${s.url}/startupz`)).status;
      console.log(`readyz at ${(a - t0).toFixed(0)} took ${(performance.now() - a).toFixed(0)} ${res.status} ${body.slice(0, 80)} startupz ${su}`);
      if (su === 200 && started) break;
      if (su === 200) started = true;
    }
    await s.stop();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
  for (const e of engines) await removeContainers(e, prefix);
}
