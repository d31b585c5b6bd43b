// The engine scenarios (test/helpers/engine-scenarios.ts, docs/engines.md#engines-tested) on Debian trixie's Docker
// 26.1 (API 1.45). One file per engine set-up: tap's jobs run them side by side.
import t from 'tap';
import { engineScenarios } from '../helpers/engine-scenarios.js';
import { docker26Scenario } from '../helpers/scenarios.js';

engineScenarios(1);

t.test("Docker 26 is trixie's 26.1 with containerd 1.7, beside bookworm's runc", async (t) => {
  const s = await docker26Scenario(t, 'e2e-ver-components');
  if (!s) return;
  const version = (await s.engine.version()) as { Version: string; Components?: { Name: string; Version: string }[] };
  const component = (name: string) => version.Components?.find((c) => c.Name === name)?.Version ?? '';
  t.match(version.Version, /^26\.1\./, 'the engine');
  t.match(component('containerd'), /^1\.7\./, 'its containerd');
  t.match(component('runc'), /^1\.1\./, "bookworm's runc");
});
