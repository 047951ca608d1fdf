/**
 * Runs bench/catalog-diff.ts (a script of the catalog flow: prints its figures, exits 1 when its targets are
 * missed) in a child process and reads its figures back for the report.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('../catalog-diff.ts', import.meta.url));

interface ExecOutcome {
  stdout: string;
  stderr: string;
  code: number;
}

function runScript(args: string[]): Promise<ExecOutcome> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', SCRIPT, ...args],
      { timeout: 10 * 60_000, maxBuffer: 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
        resolve({ stdout, stderr, code });
      },
    );
  });
}

function figure(text: string, pattern: RegExp): string | undefined {
  return pattern.exec(text)?.[1];
}

/** The script's figures as report details; a line saying why when they cannot be read. */
export async function isolatedCatalogDiff(skus: number, rounds: number): Promise<Record<string, string>> {
  const { stdout, stderr, code } = await runScript(['--skus', String(skus), '--rounds', String(rounds)]);
  const diff = figure(stdout, /diff \(planCatalog\):\s+([\d.]+) ms/);
  const baseline = figure(stdout, /JSON\.stringify of the snapshot:\s+([\d.]+) ms/);
  const batches = figure(stdout, /product batch calls planned:\s+(\d+)/);
  if ((code !== 0 && code !== 1) || diff === undefined || baseline === undefined) {
    const why = (stderr.trim() || stdout.trim()).split('\n').slice(-3).join(' ').slice(0, 300);
    return { 'bench/catalog-diff.ts': `no figures (exit ${code}): ${why}` };
  }
  return {
    'bench/catalog-diff.ts, products + availability + prices: diff / JSON.stringify, median (ms)': `${diff} / ${baseline} (ratio ${(Number(diff) / Number(baseline)).toFixed(2)})`,
    'bench/catalog-diff.ts: product batch calls planned': batches ?? 'not printed',
  };
}
