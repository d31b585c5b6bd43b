// The volume snapshots' migrate-then-fail story (test/e2e/snapshots.ts, docs/snapshots.md) on Docker 28.5 with the classic store. One file per
// engine set-up: tap's jobs run them side by side.
import { snapshotScenarios } from './snapshots.js';

snapshotScenarios(3);
