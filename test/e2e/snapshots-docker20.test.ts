// The volume snapshots' migrate-then-fail story (test/e2e/snapshots.ts, docs/snapshots.md) on Docker 20.10. One file per
// engine set-up: tap's jobs run them side by side.
import { snapshotScenarios } from './snapshots.js';

snapshotScenarios(0);
