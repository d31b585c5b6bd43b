// The chaos suite's seeded rounds triggered by run-once (test/chaos/rounds.ts): one file per kind, run side by side.
import { seededRounds } from './rounds.js';

seededRounds('run-once');
