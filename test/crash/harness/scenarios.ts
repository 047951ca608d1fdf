/** Every crash scenario; adding one is a module with a CrashScenario and a line here. */
import { buyerScenario, buyerScenarioWith } from './buyer.js';
import type { CrashScenario } from './scenario.js';
import { supplierScenario } from './supplier.js';

/** buyer-mirror adds the mirror flow beside the journal export (for long runs: `--scenario buyer-mirror`). */
export const crashScenarios: readonly CrashScenario[] = [
  supplierScenario,
  buyerScenario,
  buyerScenarioWith({ mirror: true, maxLinesPerBatch: 8 }),
];
