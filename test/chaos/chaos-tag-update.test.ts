// The chaos suite's SIGKILL rounds during tag updates (test/chaos/rounds.ts): one file per kind, run side by side.
import { tagRounds } from './rounds.js';

tagRounds('tag update');
