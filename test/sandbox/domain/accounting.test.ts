import { describe, expect, it } from 'vitest';
import { strict } from '../../../src/contract/index.js';
import { createHarness, type ProblemLike } from './harness.js';

interface Line {
  id: string;
  document_id: string;
  status: string;
  export_batch_id: string | null;
}
const approvedLines = (h: ReturnType<typeof createHarness>) =>
  Object.values(h.state()['journalLines'] as Record<string, Line>).filter(
    (line) => line.status === 'approved_for_export',
  );

describe('accounting exports (G12)', () => {
  it('exports approved lines once; the second attempt is 409 with already_exported per line', async () => {
    const h = createHarness();
    const { journal_line_ids: ids } = h.action<{ journal_line_ids: string[] }>('approve_journal_lines', {
      count: 7,
    });
    expect(ids).toHaveLength(7);
    const first = await h.call('POST', '/accounting/exports', {
      body: { journal_line_ids: ids, target: 'hashavshevet' },
    });
    expect(first.status).toBe(201);
    const batch = strict.AccountingExportBatch.parse(first.body) as { id: string; line_count: number };
    expect(batch.line_count).toBe(7);
    const exported = Object.values(h.state()['journalLines'] as Record<string, Line>).filter((line) =>
      ids.includes(line.id),
    );
    expect(exported.every((line) => line.status === 'exported' && line.export_batch_id === batch.id)).toBe(
      true,
    );
    const again = await h.call('POST', '/accounting/exports', { body: { journal_line_ids: [ids[0]] } });
    expect(again.status).toBe(409);
    expect((again.body as ProblemLike).errors).toEqual([
      expect.objectContaining({ field: 'journal_line_ids[0]', code: 'already_exported' }),
    ]);
    expect((await h.call('GET', `/accounting/exports/${batch.id}`)).status).toBe(200);
    const docs = h.state()['documents'] as Record<string, { export_status: string; buyer_status: string }>;
    const docIds = new Set(exported.map((line) => line.document_id));
    for (const id of docIds)
      expect([docs[id]?.buyer_status, docs[id]?.export_status]).toEqual(['exported', 'exported']);
  });

  it('rejects unknown and not_ready lines with 422 and exports nothing', async () => {
    const h = createHarness();
    const [line] = approvedLines(h);
    if (!line) throw new Error('seed has approved lines');
    const unknown = await h.call('POST', '/accounting/exports', {
      body: { journal_line_ids: [line.id, 'jl_nope'] },
    });
    expect(unknown.status).toBe(422);
    expect((unknown.body as ProblemLike).errors).toEqual([
      expect.objectContaining({ field: 'journal_line_ids[1]', code: 'not_found' }),
    ]);
    const snapshot = h.domain.snapshot() as { journalLines: Record<string, Line> };
    const stored = snapshot.journalLines[line.id];
    if (stored) stored.status = 'not_ready';
    h.domain.restore(snapshot);
    const notReady = await h.call('POST', '/accounting/exports', { body: { journal_line_ids: [line.id] } });
    expect((notReady.body as ProblemLike).errors).toEqual([expect.objectContaining({ code: 'not_ready' })]);
    expect(approvedLines(h).some((candidate) => candidate.status === 'exported')).toBe(false);
  });

  it('accepts at most 5000 ids per export', async () => {
    const h = createHarness();
    const ids = Array.from({ length: 5001 }, (_, index) => `jl_${index}`);
    const reply = await h.call('POST', '/accounting/exports', { body: { journal_line_ids: ids } });
    expect(reply.status).toBe(422);
    expect((reply.body as ProblemLike).errors[0]?.field).toBe('journal_line_ids');
  });

  it('approve_journal_lines produces exactly the requested number of lines at scale, announced by one event', () => {
    const h = createHarness();
    h.events.length = 0;
    const { journal_line_ids: ids } = h.action<{ journal_line_ids: string[] }>('approve_journal_lines', {
      count: 3001,
    });
    expect(new Set(ids).size).toBe(3001);
    expect(h.events.map((event) => [event.type, event.data['count']])).toEqual([
      ['journal_lines.approved_for_export', 3001],
    ]);
    strict.JournalLinesApprovedEventData.parse(h.events[0]?.data);
  });

  it('lists journal lines by status with strict items', async () => {
    const h = createHarness();
    const page = (
      await h.call('GET', '/accounting/journal-lines', {
        query: { status: 'approved_for_export', limit: '200' },
      })
    ).body as { data: Line[] };
    expect(page.data.length).toBeGreaterThan(0);
    for (const line of page.data) {
      strict.JournalLine.parse(line);
      expect(line.status).toBe('approved_for_export');
    }
  });
});
