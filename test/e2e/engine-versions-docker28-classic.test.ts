// The engine scenarios (test/helpers/engine-scenarios.ts, docs/engines.md#engines-tested) on Debian sid's Docker 28.5
// (API 1.51, containerd 2.1) with the classic image store (graph driver). One file per engine set-up: tap's jobs run them side by side.
import t from 'tap';
import { docker28EngineChecks, engineScenarios } from '../helpers/engine-scenarios.js';
import { docker28Scenario } from '../helpers/scenarios.js';

engineScenarios(3);

t.test("Docker 28.5 is sid's, with containerd 2.1, with the classic image store", (t) => docker28EngineChecks(t, docker28Scenario, false));
