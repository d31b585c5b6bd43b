// The engine scenarios (test/helpers/engine-scenarios.ts, docs/engines.md#engines-tested) on Debian sid's Docker 28.5
// (API 1.51, containerd 2.1) with the containerd image store on, started with Docker 29's API floor
// 1.44. One file per engine set-up: tap's jobs run them side by side.
import t from 'tap';
import { docker28EngineChecks, engineScenarios } from '../helpers/engine-scenarios.js';
import { docker28StoreScenario } from '../helpers/scenarios.js';

engineScenarios(2);

t.test("Docker 28.5 is sid's, with containerd 2.1, with the containerd image store on (API floor 1.44)", (t) => docker28EngineChecks(t, docker28StoreScenario, true));
