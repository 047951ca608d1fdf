/**
 * The dry run's preview file: batches and dead letters are spooled to disk as the run finds them and put together
 * at the end, so a walk where most documents fail does not hold its dead letters in memory.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BatchPlan } from '../../../src/flows/journal-export/plans.js';
import { PreviewWriter } from '../../../src/flows/journal-export/preview.js';
import type { FailedGroup } from '../../../src/flows/journal-export/select.js';
import { tempDir, type TempDir } from '../../state/support.js';

const NOW = Date.parse('2026-11-24T06:00:00.000Z');

interface PreviewFile {
  generated_at: string;
  pending_batches: number;
  batches: { batch_key: string; line_ids: string[] }[];
  dead_letters: { document_id: string; kind: string; reason: string }[];
}

let tmp: TempDir;
beforeEach(() => {
  tmp = tempDir('supply-sync-preview-');
});
afterEach(() => {
  tmp.remove();
});

function plan(n: number): BatchPlan {
  const lineIds = [`jl_${n}_a`, `jl_${n}_b`];
  return {
    version: 1,
    batchKey: `jb-${n}`,
    createdAt: NOW,
    lineIds,
    documentIds: [`doc_${n}`],
    documentLines: { [`doc_${n}`]: lineIds },
    periods: ['2026-11'],
    batch: { batchKey: `jb-${n}`, entries: [] },
    target: 'books',
    written: false,
    location: null,
  };
}

function failure(n: number): FailedGroup {
  return {
    group: { documentId: `doc_failed_${n}`, lines: [] },
    kind: 'unmapped',
    reason: `account "4${n}" has no mapping ("quoted", \\ and unicode: שקל)`,
  };
}

function read(file: string): PreviewFile {
  return JSON.parse(readFileSync(file, 'utf8')) as PreviewFile;
}

describe('journal-export preview file', () => {
  it('writes valid JSON with no batches and no dead letters', async () => {
    const file = join(tmp.dir, 'preview.json');
    const writer = await PreviewWriter.open(file, 0, NOW);
    await writer.finish();
    expect(read(file)).toEqual({
      generated_at: '2026-11-24T06:00:00.000Z',
      pending_batches: 0,
      batches: [],
      dead_letters: [],
    });
    expect(readdirSync(tmp.dir)).toEqual(['preview.json']);
  });

  it('puts thousands of spooled dead letters after the batches, in order, and leaves no temporary file', async () => {
    const file = join(tmp.dir, 'preview.json');
    const writer = await PreviewWriter.open(file, 2, NOW);
    // Interleaved as a walk finds them; 5,000 letters are several read chunks when copied back.
    for (let n = 0; n < 5_000; n += 1) {
      if (n % 1_000 === 0) await writer.batch(plan(n));
      await writer.deadLetter(failure(n));
    }
    expect(readdirSync(tmp.dir)).toHaveLength(2);
    await writer.finish();

    const content = read(file);
    expect(content.pending_batches).toBe(2);
    expect(content.batches.map((b) => b.batch_key)).toEqual([
      'jb-0',
      'jb-1000',
      'jb-2000',
      'jb-3000',
      'jb-4000',
    ]);
    expect(content.dead_letters).toHaveLength(5_000);
    expect(content.dead_letters[0]).toEqual({
      document_id: 'doc_failed_0',
      kind: 'unmapped',
      reason: failure(0).reason,
    });
    expect(content.dead_letters.map((letter) => letter.document_id)).toEqual(
      Array.from({ length: 5_000 }, (_, n) => `doc_failed_${n}`),
    );
    expect(readdirSync(tmp.dir)).toEqual(['preview.json']);
  });

  it('keeps the previous preview and removes both temporary files when the run is abandoned', async () => {
    const file = join(tmp.dir, 'preview.json');
    writeFileSync(file, '{"previous":true}\n');
    const writer = await PreviewWriter.open(file, 0, NOW);
    await writer.batch(plan(1));
    await writer.deadLetter(failure(1));
    await writer.abandon();
    expect(readFileSync(file, 'utf8')).toBe('{"previous":true}\n');
    expect(readdirSync(tmp.dir)).toEqual(['preview.json']);
  });
});
