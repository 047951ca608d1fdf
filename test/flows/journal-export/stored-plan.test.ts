import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  JOURNAL_ENTRY_CONTENT_KEYS,
  sameEntryContent,
  type JournalEntry,
} from '../../../src/connector-contract/journal.js';
import { PlanStore, splitByDocument, type BatchPlan } from '../../../src/flows/journal-export/plans.js';
import { decodePlan, encodePlan, StoredPlanError } from '../../../src/flows/journal-export/stored-plan.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import { plan } from './plan-fixture.js';

describe('journal-export stored plans', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('stores each line id once and reads back the plan it was given', () => {
    const original = plan();
    const stored = encodePlan(original);
    expect(stored.version).toBe(2);
    const text = JSON.stringify(stored);
    for (const id of original.lineIds) expect(text.split(`"${id}"`)).toHaveLength(2);
    expect(text.length).toBeLessThan(JSON.stringify(original).length / 2);
    expect(decodePlan(JSON.parse(text))).toEqual(original);
    for (const read of [original, decodePlan(JSON.parse(text))]) {
      expect(Object.entries(read?.documentLines ?? {})).toContainEqual(['__proto__', ['d1', 'd2']]);
    }
  });

  it('keeps every field of every entry, whatever it holds', () => {
    const original = plan();
    const entries = original.batch.entries.map((entry, i) => {
      const changed: Record<string, unknown> = { ...entry };
      for (const key of JOURNAL_ENTRY_CONTENT_KEYS) {
        if (key !== 'sourceIds' && key !== 'side') changed[key] = `${key} of entry ${i}`;
      }
      return changed as unknown as JournalEntry;
    });
    const unusual = { ...original, batch: { ...original.batch, entries } };
    const read = decodePlan(JSON.parse(JSON.stringify(encodePlan(unusual))));
    expect(read).toEqual(unusual);
    for (const [i, entry] of read.batch.entries.entries()) {
      expect(sameEntryContent(entry, entries[i] as JournalEntry)).toBe(true);
    }
  });

  it('reads back the plans a refused batch is split into', () => {
    for (const part of splitByDocument(plan(), 9)) {
      expect(decodePlan(JSON.parse(JSON.stringify(encodePlan(part))))).toEqual(part);
    }
  });

  it('still reads plans saved whole (version 1), and keeps whole a plan the compact form cannot hold', () => {
    const original = plan();
    expect(decodePlan(JSON.parse(JSON.stringify(original)))).toEqual(original);
    const renumbered = {
      ...original,
      batch: {
        ...original.batch,
        entries: original.batch.entries.map((entry, i) => ({ ...entry, lineNumber: i + 2 })),
      },
    };
    expect(encodePlan(renumbered)).toEqual(renumbered);
    const written = { ...original, written: true, location: 'x' };
    expect(encodePlan(written)).toEqual(written);
  });

  it('refuses a stored plan whose line ids do not give its batch key', () => {
    const stored = JSON.parse(JSON.stringify(encodePlan(plan()))) as { documents: string[][] };
    const zeroLines = stored.documents.find((document) => document.length > 2);
    if (zeroLines === undefined) throw new Error('the plan has no document with a zero line');
    zeroLines.pop();
    expect(() => decodePlan(stored)).toThrow(StoredPlanError);
  });

  it('refuses a stored value that is no plan it can read, instead of skipping it', () => {
    const stored = JSON.parse(JSON.stringify(encodePlan(plan()))) as Record<string, unknown>;
    const damaged: unknown[] = [
      null,
      'text',
      { ...stored, version: 3 },
      { ...stored, documents: 'not a list' },
      { ...stored, documents: [['doc', -1]] },
      { ...stored, documents: [['doc', 1.5]] },
      { ...stored, batchKey: 7 },
    ];
    for (const value of damaged)
      expect(() => decodePlan(value), JSON.stringify(value)).toThrow(StoredPlanError);
    const kinds = damaged.map((value) => {
      try {
        decodePlan(value);
        return 'read';
      } catch (error) {
        return error instanceof StoredPlanError ? error.kind : 'other error';
      }
    });
    expect(kinds).toEqual(['damaged', 'damaged', 'newer', 'damaged', 'damaged', 'damaged', 'damaged']);
  });

  it('saves each plan with a digest of its stored text, and refuses one whose entries changed since', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stored-plan-'));
    dirs.push(dir);
    const state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
    const namespace = 'journal-export:journal:plans';
    const rawText = (key: string) =>
      (
        state.db.prepare('SELECT value FROM kv WHERE namespace = ? AND key = ?').get(namespace, key) as {
          value: string;
        }
      ).value;
    try {
      const store = new PlanStore(state, 'journal');
      const original = plan();
      const written = { ...plan(), batchKey: 'je-written', written: true, location: 'books/je-written.txt' };
      store.save(original);
      store.save(written);
      for (const key of [original.batchKey, written.batchKey]) {
        const text = rawText(key);
        const match = /^(\{.*),"digest":"([0-9a-f]{64})"\}$/s.exec(text);
        expect(match, text.slice(-100)).not.toBeNull();
        expect(
          createHash('sha256')
            .update(`${match?.[1] ?? ''}}`)
            .digest('hex'),
        ).toBe(match?.[2]);
      }
      expect(store.list()).toEqual([original, written]);

      // One amount changed in the stored text (a disk fault, a bad restore): the JSON still parses.
      const text = rawText(original.batchKey);
      expect(text).toContain('"57.63"');
      state.kv.setJson(namespace, original.batchKey, text.replace('"57.63"', '"57.68"'));
      expect(() => store.list()).toThrow(
        new StoredPlanError(`the saved plan ${original.batchKey} does not match its checksum; it is damaged`),
      );
      state.kv.setJson(namespace, original.batchKey, text);
      expect(store.list()).toEqual([original, written]);

      // The location of a written batch is content too; and a digest that is not a string is no digest.
      const writtenText = rawText(written.batchKey);
      state.kv.setJson(namespace, written.batchKey, writtenText.replace('je-written.txt', 'je-other.txt'));
      expect(() => store.list()).toThrow(/je-written does not match its checksum/);
      const noDigest = writtenText.replace(/"digest":"[0-9a-f]+"/, '"digest":7');
      state.kv.setJson(namespace, written.batchKey, noDigest);
      expect(() => store.list()).toThrow(/je-written does not match its checksum/);

      // A plan saved before plans had a digest is read as it is; saved again, it gets a digest of its own, also
      // when an earlier version read it back with the digest of the time still on it.
      state.kv.set(namespace, written.batchKey, encodePlan(written));
      expect(store.list()).toEqual([original, written]);
      store.save({ ...written, digest: 'stale' } as BatchPlan);
      expect(rawText(written.batchKey)).not.toContain('stale');
      expect(store.list()).toEqual([original, written]);

      // A plan found under another batch's key (a row damaged in its key) is not taken for that batch.
      state.kv.setJson(namespace, 'je-elsewhere', rawText(original.batchKey));
      expect(() => store.get('je-elsewhere')).toThrow(
        new StoredPlanError(`the saved plan je-elsewhere names batch ${original.batchKey}; it is damaged`),
      );
      store.remove('je-elsewhere');

      // Text that is no longer JSON (a value cut short) is a damaged plan too, not an error of another kind.
      state.kv.setJson(namespace, written.batchKey, rawText(written.batchKey).slice(0, 60));
      expect(() => store.get(written.batchKey)).toThrow(
        new StoredPlanError(`the saved plan ${written.batchKey} is not valid JSON; it is damaged`),
      );
    } finally {
      state.close();
    }
  });

  it('keeps plans in the state store in the compact form and lists them as planned', () => {
    const dir = mkdtempSync(join(tmpdir(), 'stored-plan-'));
    dirs.push(dir);
    const state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
    try {
      const store = new PlanStore(state, 'journal');
      const original = plan();
      const [first, second] = splitByDocument(original, 8);
      if (first === undefined || second === undefined)
        throw new Error('the plan has fewer than two documents');
      store.save(original);
      store.save(second);
      store.save(first);
      const raw = state.kv.get('journal-export:journal:plans', original.batchKey) as { version: number };
      expect(raw.version).toBe(2);
      // A plan an earlier version saved whole, still pending after an upgrade.
      const earlier = { ...original, batchKey: 'je-earlier', createdAt: 1 };
      state.kv.set('journal-export:journal:plans', earlier.batchKey, earlier);
      expect(store.list()[0]).toEqual(earlier);
      store.remove(earlier.batchKey);
      expect(store.list()).toEqual(
        [original, first, second].sort(
          (a, b) => a.createdAt - b.createdAt || (a.batchKey < b.batchKey ? -1 : 1),
        ),
      );
    } finally {
      state.close();
    }
  });
});
