/**
 * The ERP users' activity for the soak, in a process of its own as in real life: the demo ERP is SQLite, and a
 * write from the daemon's own process would share its event loop with the daemon's busy waits.
 * Usage: node --import tsx test/soak/erp-activity.ts <erp dir> <now ms> <seed>
 */
import { openDemoErp, simulateErpActivity } from '../../connectors/sql/demo-erp/index.js';
import { seededPrng } from '../crash/harness/prng.js';

const [dir, nowText, seedText] = process.argv.slice(2);
if (dir === undefined) throw new Error('usage: erp-activity.ts <erp dir> <now ms> <seed>');
const now = Number(nowText);
const erp = await openDemoErp(dir);
try {
  await simulateErpActivity(erp, {
    clock: { now: () => now, sleep: () => Promise.resolve() },
    random: seededPrng(Number(seedText)).next,
    confirmations: 0,
    documents: 1,
    catalogChanges: 2,
  });
} finally {
  await erp.driver.close();
}
