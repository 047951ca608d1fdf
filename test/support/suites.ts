/**
 * How the suite splits between `npm test` (vitest.config.ts) and `npm run test:long` (vitest.long.config.ts).
 *
 * A long run is a test that kills processes, injects faults or simulates days, found by its path below. `npm test`
 * runs the crash and kill -9 tests too, at CI size (fewer kill points, a shorter kill phase) set through the size
 * knobs each test already reads; the whole-daemon fault convergence and the week-long soak run only in
 * `npm run test:long`, which runs every long run at the full size written in the test. A new test that kills
 * processes belongs here by its name (`kill9*.test.ts`, or under test/crash, test/fault or test/soak) and should
 * read its size from an environment variable listed in CI_SIZES.
 */

/** Settings both runs share. */
export const SHARED_TEST_OPTIONS: {
  testTimeout: number;
  hookTimeout: number;
  pool: 'forks';
  globalSetup: string[];
} = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  // Child processes, SQLite and real sockets: each test file in its own process.
  pool: 'forks',
  // Compiles the CLI and every child process entry once, for all test files.
  globalSetup: ['test/support/global-setup.ts'],
};

/** The long runs, by path. */
export const LONG_RUNS: readonly string[] = [
  'test/crash/**/*.test.ts',
  'test/fault/**/*.test.ts',
  'test/soak/**/*.test.ts',
  'test/**/kill9*.test.ts',
  'test/flows/*/faults.test.ts',
  // Real kill -9 tests named before the kill9 convention.
  'test/flows/orders/crash.test.ts',
  'test/flows/order-confirm/crash.test.ts',
  'test/webhooks/crash.test.ts',
  // A waiting CLI whose daemon is killed or frozen, on each state backend.
  'test/cli/waiting-never-hangs.test.ts',
  // Every operator command given to a running daemon while orders arrive, on a state file and on a PostgreSQL state
  // with two instances.
  'test/daemon/operator-commands.test.ts',
  // The demo's ERP users beside the daemon's ERP jobs, until enough of each happened.
  'test/daemon/demo-erp-activity.test.ts',
  // The benchmark runner, briefly: its report's shape, not its speed.
  'test/bench/smoke.test.ts',
  // Two office processes on PostgreSQL, one unable to run a company.
  'test/ha/office-cannot-run.test.ts',
];

/**
 * The shipped artefacts, built as a release builds them: the container image and the release tarball. Only
 * `npm run test:docker` (vitest.docker.config.ts), a stage of .ci/run: each builds the whole package first (the
 * tarball test alone used about 35 s of CPU, a tenth of what `npm test` may spend).
 */
export const ARTEFACT_TESTS: readonly string[] = ['test/docker/**/*.test.ts', 'test/deploy/release.test.ts'];

/**
 * Long runs left out of `npm test`, which keeps a representative of each of their scenarios:
 * - those with no CI size (fault convergence, soak);
 * - the supplier daemon pair's failover. Under the load of `npm test` on the 2-core machine (six test processes,
 *   load average about 10) it did not converge within its 180 s after 3 failovers in 4 of 5 full runs, while
 *   `test:long` (two test processes) converged in 13 s after 30. Its flows' writes under a freeze keep their
 *   `npm test` representatives in test/ha/kill9-inflight-*.test.ts and test/failover/kill9-commands.test.ts, and
 *   the buyer pair's failover stays;
 * - the whole daemon under kill -9, supplier and buyer: each of their flows is killed inside its runs by its own
 *   kill -9 test (test/flows/orders/crash.test.ts, order-confirm/crash, documents/kill9, catalog/kill9,
 *   journal-export/kill9-sql and kill9-hashavshevet, mirror/kill9, expenses/kill9), and the buyer pair's failover
 *   (test/failover/kill9-buyer.test.ts) kills a whole buyer daemon with SIGKILL while its webhook and catch-up runs
 *   go on, and checks the same losses and duplicates (on a PostgreSQL state; the kill -9 tests of the flows use state
 *   files);
 * - every operator command given to a running daemon while orders arrive (test/daemon/operator-commands.test.ts,
 *   26 s of CPU at its smallest, nearly all of it CLI processes): each command reaches a running daemon in a test of
 *   its own in `npm test` (pause and resume in test/cli/office.test.ts and test/daemon/console-chromium.test.ts, run
 *   now in test/failover/kill9-commands.test.ts, cursor reset in test/daemon/cursor-reset-race.test.ts, catalog
 *   removal in test/cli/catalog-remove.test.ts, config reload in test/daemon/config-reload.test.ts), and the command
 *   queue on PostgreSQL in test/state/commands-postgres.test.ts;
 * - the benchmark runner's smoke test: a bench keeps both cores busy for its windows by design, and it checks the
 *   report's shape, not a guarantee of the daemon;
 * - three office processes sharing companies through SIGKILL and SIGSTOP: 88 s of the slowest test process in
 *   `npm test`, and their elections and heartbeats slowed the others (`npm test` went from 236 s to 357 s). Its
 *   parts keep their `npm test` representatives: the claim, the hand-over and the grace of the elector
 *   (test/ha/elector.test.ts), the assignment (test/daemon/company-assignment.test.ts), the failover of one
 *   company's pair (test/failover/kill9-buyer.test.ts), and the office report's claim of the day
 *   (test/ha/office-members.test.ts, test/notify/office-report-claims.test.ts);
 * - two office processes, one unable to run a company: its parts are in `npm test` (the assignment in
 *   test/daemon/company-assignment.test.ts, what each process publishes in test/ha/office-members.test.ts, the
 *   office page's placement in test/daemon/office-status.test.ts).
 */
export const LONG_ONLY: readonly string[] = [
  'test/fault/**/*.test.ts',
  'test/soak/**/*.test.ts',
  'test/failover/kill9-supplier.test.ts',
  'test/crash/supplier.test.ts',
  'test/crash/buyer.test.ts',
  'test/failover/kill9-office-instances.test.ts',
  'test/ha/office-cannot-run.test.ts',
  'test/daemon/operator-commands.test.ts',
  'test/bench/smoke.test.ts',
];

/**
 * The size of each long run in `npm test`: one representative of each crash, freeze and failover scenario per flow,
 * small; the repetitions are `npm run test:long`'s, at the full size written in each test (CI runs both). A value
 * set in the environment wins, so a run can be made larger by hand.
 */
const CI_SIZES: Readonly<Record<string, string>> = {
  // The orders and order-confirm kill tests. With their seeds, 12 rounds of the orders test send 28 orders, touch a
  // timestamp group (round 1) and cancel an order the ERP holds (as soon as it holds one), and 12 rounds of the
  // order-confirm test decide 16 orders of all three kinds (full, partial, reject by round 4); in both the kill
  // delays already span the whole 0-400 ms range after the child is ready. Fewer rounds miss a scenario.
  SUPPLY_SYNC_CRASH_POINTS: '12',
  // Per-flow kill -9 tests of two scenarios each: two kills in each scenario.
  BUYERS_KILL_POINTS: '4',
  CATALOG_KILL_POINTS: '4',
  DOCUMENTS_KILL_POINTS: '4',
  SALES_PUSH_KILL_POINTS: '4',
  // The engine's pull of about 20,000 records under kill -9 (test/engine/kill9.test.ts): one run let finish halfway,
  // then late commits behind its watermark; 24 kills in `test:long`.
  ENGINE_KILL_POINTS: '8',
  // Expenses kill -9: with its seeds, 16 kills land in upload, creation and write-back windows and catch a retry
  // under a new Idempotency-Key (12 did not); `test:long` runs 50.
  EXPENSES_KILL_POINTS: '16',
  // Journal export kill -9, for each of its SQL and Hashavshevet targets.
  JOURNAL_KILL_POINTS: '3',
  // Mirror kill -9: 8 of its rounds must kill the export backfill (BACKFILL_ROUNDS), half the points go there.
  MIRROR_KILL_POINTS: '16',
  // The orders flow through the odata connector, for SAP Business One here and for Priority as well in `test:long`
  // (each with a deep insert, through the same connector code): kill points counted in ERP requests, plus at least
  // one kill right after the ERP committed an order and one fault after a commit (the ERP's 5xx or dropped answer);
  // `test:long` runs 50 kill points and 3 of each, per preset.
  ODATA_KILL_PRESETS: 'sap-b1-service-layer',
  ODATA_KILL_POINTS: '4',
  ODATA_AT_COMMIT_KILLS: '1',
  ODATA_AFTER_COMMIT_FAULTS: '1',
  // Leader failovers between elector processes, alternating SIGKILL and SIGSTOP (test/ha/kill9-failover.test.ts):
  // from 4 on, one of the freezes must land inside a transaction.
  HA_FAILOVER_POINTS: '4',
  // Failovers between two whole daemons, supplier and buyer (test/failover/kill9-*.test.ts): SIGKILL, SIGSTOP and a
  // cut from the database, one of each, the second aimed at a run the leader has open.
  HA_DAEMON_FAILOVER_POINTS: '3',
  // Leaders frozen (SIGSTOP) with a write really in flight: an ERP transaction between its write and its commit
  // (test/ha/kill9-inflight-erp.test.ts), a catalog batch or an OData request held by a relay
  // (kill9-inflight-catalog, kill9-inflight-odata: the request held before the ERP, then with only its answer held).
  HA_INFLIGHT_POINTS: '2',
  // Run-now commands whose leader is killed between the ERP write and the command recorded done
  // (test/failover/kill9-commands.test.ts).
  COMMAND_KILL_POINTS: '1',
  // A waiting CLI never hangs (test/cli/waiting-never-hangs.test.ts): on the state file here; on PostgreSQL too in
  // `test:long`, where the killed daemon's lease must run out (20 s) before the CLI may say it is gone.
  NEVER_HANGS_BACKENDS: 'file',
  // The catalog's crash window between the API's answer and the state commit (test/flows/catalog/kill9-window.test.ts):
  // on the state file here; `test:long` repeats it on PostgreSQL, where other tests of `npm test` already cover the
  // catalog's write-ahead intents (test/flows/catalog/write-ahead.test.ts).
  CATALOG_WINDOW_BACKENDS: 'file',
  // The demo's ERP users beside the daemon's ERP jobs (test/daemon/demo-erp-activity.test.ts): invoice rounds of the
  // users and runs of each ERP job; `test:long` runs 30 and 8.
  DEMO_ERP_INVOICE_ROUNDS: '10',
  DEMO_ERP_RUNS_PER_JOB: '3',
};

export function ciSizes(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(Object.entries(CI_SIZES).map(([name, size]) => [name, env[name] ?? size]));
}
