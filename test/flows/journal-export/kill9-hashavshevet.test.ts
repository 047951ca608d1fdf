/** kill -9 at seeded random points with Hashavshevet import files as the target (see kill9-support.ts). */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { expectBooksMatchLines, hashavshevetTotalsByFile } from './targets.js';
import { startHarness, type Harness } from './harness.js';
import { crashUntilConverged, exportedByUs, KILL_POINTS } from './kill9-support.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('journal-export under kill -9', () => {
  it(`Hashavshevet target: ${KILL_POINTS} kill points, then one file per exported batch, read with the published reader`, async () => {
    h = await startHarness();
    const importDir = join(h.dir, 'imports');
    await mkdir(importDir, { recursive: true });
    const kills = await crashUntilConverged(h, 7, 'hashavshevet', importDir);
    expect(kills).toBeGreaterThanOrEqual(KILL_POINTS);
    const { ours, refOf } = await exportedByUs(h);
    const files = hashavshevetTotalsByFile(importDir);
    const refs = new Set(refOf.values());
    expect(new Set(files.keys())).toEqual(refs);
    for (const [key, totals] of files) {
      const lines = ours.filter((line) => refOf.get(line.export_batch_id ?? '') === key);
      expectBooksMatchLines(totals, lines);
    }
  }, 400_000);
});
