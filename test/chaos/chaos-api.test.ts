// The chaos suite's seeded rounds triggered by api (test/chaos/rounds.ts): one file per kind, run side by side.
import { seededRounds } from './rounds.js';

seededRounds('api');
