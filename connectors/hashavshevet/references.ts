/**
 * References in the import are numbers of at most nine digits. A document number that is not such a number needs
 * a configured rule; without one it is refused, never cut silently.
 *  - refuse:      only plain numbers of up to nine digits pass.
 *  - last_digits: the last nine digits of the number (its other characters dropped); the full number belongs in
 *                 the details template.
 *  - sequence:    a number from a counter kept in the import folder, the same number every time for the same
 *                 document number.
 * The counter file is written with the first batch whatever the rule: it is how the folder is recognised later
 * (folder-mark.ts).
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isNotFound, writeFileAtomic } from '../../src/kit/atomic-file.js';
import { REFERENCE_DIGITS } from './layout.js';

export type LongReferenceRule = 'refuse' | 'last_digits' | 'sequence';
export const LONG_REFERENCE_RULES: readonly LongReferenceRule[] = ['refuse', 'last_digits', 'sequence'];

export const SEQUENCE_FILE = 'supply-sync-references.json';
const PLAIN = new RegExp(`^\\d{1,${REFERENCE_DIGITS}}$`);
const MAX_SEQUENCE = 10 ** REFERENCE_DIGITS - 1;

export class ReferenceRuleError extends Error {}

export interface SequenceState {
  next: number;
  assigned: Record<string, number>;
}

/** Resolves references for one batch; new sequence numbers are only kept once `persist` runs. */
export class ReferenceResolver {
  readonly #added = new Map<string, number>();

  private constructor(
    private readonly rule: LongReferenceRule,
    private readonly state: SequenceState,
    private readonly file: string,
  ) {}

  static async open(
    rule: LongReferenceRule,
    folder: string,
    start: number,
    cache: SequenceCache = new SequenceCache(),
  ): Promise<ReferenceResolver> {
    const file = join(folder, SEQUENCE_FILE);
    const read = rule === 'sequence' ? await cache.read(file, start) : null;
    const state = read ?? { next: start, assigned: {} };
    return new ReferenceResolver(rule, state, file);
  }

  /** The digits to write for `reference`, or a ReferenceRuleError naming the number and the fix. */
  resolve(reference: string, field: string): string {
    const trimmed = reference.trim();
    if (trimmed === '') return '';
    if (PLAIN.test(trimmed)) return trimmed;
    switch (this.rule) {
      case 'refuse':
        throw new ReferenceRuleError(
          `${field} "${reference}" is not a number of at most ${REFERENCE_DIGITS} digits; set long_references ` +
            `to last_digits or sequence in the connector config`,
        );
      case 'last_digits': {
        const digits = trimmed.replace(/\D/g, '');
        if (digits === '') {
          throw new ReferenceRuleError(
            `${field} "${reference}" has no digits for the last_digits rule; use long_references: sequence`,
          );
        }
        return digits.slice(-REFERENCE_DIGITS);
      }
      case 'sequence':
        return String(this.#sequenceFor(trimmed));
    }
  }

  /** What `resolve` gives for a reference already written, without numbering a new one; null when it has none. */
  lookup(reference: string): string | null {
    const trimmed = reference.trim();
    if (this.rule === 'sequence' && !PLAIN.test(trimmed)) {
      const known = this.state.assigned[trimmed];
      return known === undefined ? null : String(known);
    }
    try {
      return this.resolve(reference, 'reference');
    } catch (error) {
      if (error instanceof ReferenceRuleError) return null;
      throw error;
    }
  }

  /** The number the sequence gives next, once this batch's numbers are saved. */
  get next(): number {
    return this.state.next;
  }

  /**
   * Saves numbers assigned in this batch; call before the data file that uses them is written. `create`: write the
   * file even when nothing was assigned (a folder without one, whatever the rule: the file is its mark).
   */
  async persist(create = false): Promise<void> {
    if (this.#added.size === 0 && !create) return;
    const assigned = { ...this.state.assigned, ...Object.fromEntries(this.#added) };
    const next =
      this.#added.size === 0 ? this.state.next : Math.max(this.state.next, ...this.#added.values()) + 1;
    await writeFileAtomic(this.file, `${JSON.stringify({ next, assigned }, null, 2)}\n`);
    this.state.assigned = assigned;
    this.state.next = next;
    this.#added.clear();
  }

  #sequenceFor(reference: string): number {
    const known = this.state.assigned[reference] ?? this.#added.get(reference);
    if (known !== undefined) return known;
    const value = this.state.next + this.#added.size;
    if (value > MAX_SEQUENCE) throw new ReferenceRuleError('the reference sequence passed 999999999');
    this.#added.set(reference, value);
    return value;
  }
}

/**
 * The sequence file as last read, kept while the file stays the same (inode, size and modification time): the
 * writer checks each document before a batch, and reading a file that grows with every document each time made a
 * run over many lines slow down batch after batch. A change by anyone (a batch written, another process on the
 * same folder) shows in the file's stat and is read again.
 */
export class SequenceCache {
  #kept: { readonly key: string; readonly state: SequenceState } | undefined;

  /** The file's counter (never below `start`), or null when there is no file. */
  async read(file: string, start: number): Promise<SequenceState | null> {
    const key = await statKey(file);
    const kept = this.#kept;
    if (kept !== undefined && key !== null && kept.key === key) return kept.state;
    const state = key === null ? null : await readSequence(file, start);
    this.#kept = key === null || state === null ? undefined : { key, state };
    return state;
  }
}

async function statKey(file: string): Promise<string | null> {
  try {
    const info = await stat(file, { bigint: true });
    return `${info.ino}:${info.size}:${info.mtimeNs}`;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

async function readSequence(file: string, start: number): Promise<SequenceState | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  const parsed: unknown = JSON.parse(text);
  if (!isSequenceState(parsed)) throw new Error(`${file} is not a reference sequence file`);
  return { next: Math.max(parsed.next, start), assigned: parsed.assigned };
}

function isSequenceState(value: unknown): value is SequenceState {
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  const assigned = record['assigned'];
  return (
    typeof record['next'] === 'number' &&
    assigned !== null &&
    typeof assigned === 'object' &&
    Object.values(assigned).every((n) => typeof n === 'number')
  );
}
