// The engine scenarios (test/helpers/engine-scenarios.ts, docs/engines.md#engines-tested) on Debian bookworm's
// Docker 20.10 (API 1.41), the main engine of scripts/test-env.sh. One file per engine set-up: tap's jobs run them
// side by side.
import { engineScenarios } from '../helpers/engine-scenarios.js';

engineScenarios(0);
