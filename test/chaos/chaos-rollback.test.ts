// The chaos suite's SIGKILL rounds during rollbacks (test/chaos/rounds.ts): one file per kind, run side by side.
import { tagRounds } from './rounds.js';

tagRounds('rollback');
