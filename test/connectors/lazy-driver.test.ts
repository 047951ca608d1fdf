/**
 * The pg and mssql packages load only when a configured connection is first used: a CLI command whose config has
 * no such connection does not pay their import time. Checked in a fresh process, whose module cache this test
 * file cannot have touched.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const PROBE = fileURLToPath(new URL('./fixtures/lazy-driver-probe.ts', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface ProbeReport {
  afterOpen: { mssql: boolean; pg: boolean };
  afterQuery: { mssql: boolean; pg: boolean };
  errors: { code: string; retryable: boolean; connector: string; leaksPassword: boolean }[];
}

describe('SQL drivers load their package on first use', () => {
  it('opens pg and mssql connections without loading either package, and loads each on its first query', () => {
    const output = execFileSync(process.execPath, ['--import', 'tsx', PROBE], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      timeout: 60_000,
    });
    const report = JSON.parse(output.trim().split('\n').at(-1) ?? '') as ProbeReport;
    expect(report.afterOpen).toEqual({ mssql: false, pg: false });
    expect(report.afterQuery).toEqual({ mssql: true, pg: true });
    // The loaded drivers still turn a refused connection into a retryable error naming the connector.
    expect(report.errors).toEqual([
      { code: 'connector_unreachable', retryable: true, connector: 'erp-pg', leaksPassword: false },
      { code: 'connector_unreachable', retryable: true, connector: 'erp-mssql', leaksPassword: false },
    ]);
  });
});
