/**
 * `node --import tsx bench/profile-journal.ts [lines]`: CPU profile of the journal-export flow (the benchmark's
 * child, against a sandbox in another process), written to bench/out/profile-journal.cpuprofile, with the self
 * time per category printed in percent. Only the flow is profiled, not the seeding. The child runs from the
 * TypeScript sources (not the bundle the benchmark runs) so that each sample names its source file.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFile } from 'node:fs/promises';
import { summarizeProfile, topFunctions, type CategoryRule, type CpuProfile } from './lib/cpu-profile.js';
import type { JournalChildResult } from './lib/journal-child.js';
import { runJsonChild } from './lib/run-child.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { seedJournalLines } from './lib/seed.js';
import { withTempDir } from './lib/temp.js';

/** First match wins; a sample whose own frame matches nothing counts for its nearest matching caller. */
export const JOURNAL_CATEGORIES: readonly CategoryRule[] = [
  { category: 'garbage collection', pattern: /^\(garbage collector\)/ },
  { category: 'the benchmark child (RSS sampler)', pattern: /^rss |bench\/lib\/rss\.ts/ },
  { category: 'idle (waiting on the API or the disk)', pattern: /^\(idle\)/ },
  {
    category: 'line schema parse (zod, or the exact check)',
    pattern: /node_modules\/zod\/|contract\/drift|contract\/exact-check|client\/pars/,
  },
  { category: 'staging (temporary SQLite: append, sort, read back)', pattern: /journal-export\/staging/ },
  {
    category: 'state store (plans, ledger, dead letters)',
    pattern: /src\/state\/|journal-export\/plans|^save /,
  },
  { category: 'mapping and balance check', pattern: /journal-export\/(mapping|select)/ },
  { category: 'Hashavshevet writer (encode, files)', pattern: /connectors\/hashavshevet|iconv-lite/ },
  {
    category: 'HTTP client (undici, JSON)',
    pattern: /node_modules\/undici\/|src\/client\/|node:internal\/deps\/undici/,
  },
  { category: 'flow (other)', pattern: /journal-export\// },
];

const lines = Number(process.argv[2] ?? 100_000);
const outDir = fileURLToPath(new URL('./out/', import.meta.url));
await mkdir(outDir, { recursive: true });
const sandbox = await startSandboxProcess();
try {
  await seedJournalLines(sandbox, lines, Math.min(20_000, lines));
  await withTempDir('profile-journal', async (dir) => {
    const child = fileURLToPath(new URL('./lib/journal-child.ts', import.meta.url));
    const file = join(outDir, 'profile-journal.cpuprofile');
    const result = await runJsonChild<JournalChildResult>(
      child,
      { mode: 'flow', dir, lines, baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.buyer, profileFile: file },
      30 * 60_000,
    );
    const exported = result.counts['lines_exported'] ?? 0;
    process.stdout.write(
      `${result.outcome}: ${exported} lines in ${result.elapsedMs.toFixed(0)} ms ` +
        `(${((exported * 1000) / result.elapsedMs).toFixed(0)} lines/s), peak RSS ` +
        `${(result.peakRssBytes / 2 ** 20).toFixed(0)} MiB; CPU user ${result.cpuUserMs.toFixed(0)} ms + system ` +
        `${result.cpuSystemMs.toFixed(0)} ms (${(((result.cpuUserMs + result.cpuSystemMs) * 1000) / Math.max(exported, 1)).toFixed(1)} us per line); ${file}\n`,
    );
    const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
    for (const share of summarizeProfile(profile, JOURNAL_CATEGORIES))
      process.stdout.write(`${share.percent.toFixed(1).padStart(5)} %  ${share.category}\n`);
    process.stdout.write('top functions (self time):\n');
    for (const share of topFunctions(profile, 30))
      process.stdout.write(`${share.percent.toFixed(1).padStart(5)} %  ${share.category}\n`);
  });
} finally {
  await sandbox.close();
}
