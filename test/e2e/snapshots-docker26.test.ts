// The volume snapshots' migrate-then-fail story (test/e2e/snapshots.ts, docs/snapshots.md) on Docker 26.1. One file per
// engine set-up: tap's jobs run them side by side.
import { snapshotScenarios } from './snapshots.js';

snapshotScenarios(1);
