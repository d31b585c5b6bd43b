// The chaos suite's seeded rounds triggered by update-on-start (test/chaos/rounds.ts): one file per kind, run side by side.
import { seededRounds } from './rounds.js';

seededRounds('update-on-start');
