// Configuration fidelity (test/e2e/fidelity.ts, docs/replacement.md#what-is-kept) on docker20. One file per
// engine of the matrix: tap's jobs run them side by side.
import { fidelityTests } from './fidelity.js';

fidelityTests('docker20');
