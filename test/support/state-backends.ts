/**
 * Which state backends a test that runs on each of them covers in this run. `npm test` runs such a test on the
 * state file only and leaves its PostgreSQL repetition to `npm run test:long` (the size knobs of
 * test/support/suites.ts); run alone, or by `test:long`, it covers both.
 */
export type StateBackendName = 'file' | 'postgres';

const ALL: readonly StateBackendName[] = ['file', 'postgres'];

/** The backends named in the environment variable (a comma-separated list of `file` and `postgres`), else both. */
export function stateBackends(
  variable: string,
  env: NodeJS.ProcessEnv = process.env,
): readonly StateBackendName[] {
  const value = env[variable];
  if (value === undefined || value.trim() === '') return ALL;
  const names = value.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!ALL.includes(name as StateBackendName))
      throw new Error(`${variable}=${value}: expected a comma-separated list of ${ALL.join(' and ')}`);
  }
  return ALL.filter((name) => names.includes(name));
}
