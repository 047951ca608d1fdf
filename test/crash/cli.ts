/**
 * Long crash runs outside the test runner:
 * `npm run test:crash -- --points 1000 [--seed N] [--scenario supplier|buyer|buyer-mirror]`.
 * Prints one JSON report per scenario and exits 1 when any guarantee broke.
 */
import { parseArgs } from 'node:util';
import { idleWrites, missingFlows, runCrashScenario } from './harness/run-scenario.js';
import { crashScenarios } from './harness/scenarios.js';

const { values } = parseArgs({
  options: {
    points: { type: 'string', default: '50' },
    seed: { type: 'string', default: String(Date.now() % 1_000_000) },
    scenario: { type: 'string', multiple: true },
    verbose: { type: 'boolean', default: false },
  },
});
const points = Number(values.points);
const seed = Number(values.seed);
if (!Number.isInteger(points) || points < 1) throw new Error('--points expects a positive integer');
if (!Number.isInteger(seed)) throw new Error('--seed expects an integer');
const wanted = values.scenario ?? crashScenarios.map((scenario) => scenario.name);
const unknown = wanted.filter((name) => !crashScenarios.some((scenario) => scenario.name === name));
if (unknown.length > 0) {
  throw new Error(
    `unknown scenario ${unknown.join(', ')} (known: ${crashScenarios.map((s) => s.name).join(', ')})`,
  );
}

let failed = false;
for (const scenario of crashScenarios.filter((s) => wanted.includes(s.name))) {
  const missing = missingFlows(scenario);
  if (missing.length > 0) {
    process.stdout.write(
      `${JSON.stringify({ scenario: scenario.name, skipped: `flows not registered: ${missing.join(', ')}` })}\n`,
    );
    continue;
  }
  const report = await runCrashScenario({
    scenario,
    points,
    seed,
    maxConvergeMs: 600_000,
    ...(values.verbose ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
  });
  const broken = [...report.check.violations, ...idleWrites(scenario, report)];
  failed ||= broken.length > 0;
  process.stdout.write(`${JSON.stringify({ ...report, broken }, null, 2)}\n`);
}
process.exitCode = failed ? 1 : 0;
