/** Every crash scenario; adding one is a module with a CrashScenario and a line here. */
import { buyerScenario } from './buyer.js';
import type { CrashScenario } from './scenario.js';
import { supplierScenario } from './supplier.js';

export const crashScenarios: readonly CrashScenario[] = [supplierScenario, buyerScenario];
