/**
 * A value a mapping table has no entry for, as a flow files it with its dead letter (`missing` in the record) and as
 * the notifications read it back: the reason, the summary that groups many such letters, and the fix all come from
 * here, so what is filed and what a person is told cannot drift apart.
 */

export interface MissingMapping {
  /** What the value is, as the job's options name the table: accounts, branches, movement_types. */
  readonly kind: string;
  /** The table under `mappings:` in the config. */
  readonly table: string;
  /** The API value the table has no entry for. */
  readonly key: string;
  /**
   * How the held-back records go through once the entry is added: read again by the next run (`next_run`, the
   * default: approved journal lines stay approved), or only when the operator retries the letters (`retry`: an
   * order already listed is not listed again).
   */
  readonly pickup?: 'next_run' | 'retry';
}

/** The dead letter's reason: names the line, so one document's letter says exactly where it failed. */
export function missingMappingReason(missing: MissingMapping, lineId: string): string {
  return `${missing.kind} value "${missing.key}" (line ${lineId}) has no entry in mappings.${missing.table}`;
}

/** The same without the line: what every document held back for this value has in common. */
export function missingMappingSummary(missing: MissingMapping): string {
  return `${missing.kind} value "${missing.key}" has no entry in mappings.${missing.table}`;
}

/**
 * What to do about it, naming the config file to edit, how the daemon picks the change up and, for letters that wait
 * for a retry, the command that replays the job's letters: the whole fix, as the daily report and the
 * `dead_letters` message both give it.
 */
export function missingMappingFix(missing: MissingMapping, configFile: string, job: string): string {
  const key = /^[\w.-]+$/.test(missing.key) ? missing.key : JSON.stringify(missing.key);
  const add = `add ${key} under mappings.${missing.table} in ${configFile}`;
  if (missing.pickup === 'retry') {
    // Only these letters: a retry of the whole flow would also push letters held back for a person to review.
    const entry = shellWord(`${missing.table}:${missing.key}`);
    return (
      `${add}, then run \`supply-sync config reload\` and ` +
      `\`supply-sync dead-letters retry --flow ${job} --missing ${entry}\``
    );
  }
  return `${add}, then run \`supply-sync config reload\`; the next run exports them`;
}

/** A word a POSIX shell takes as it is: quoted when it holds anything but letters, digits and `_.:-`. */
function shellWord(text: string): string {
  return /^[\w.:-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The `missing` field of a dead letter's record, when it has one of this shape. */
export function missingMappingOf(record: unknown): MissingMapping | null {
  if (record === null || typeof record !== 'object') return null;
  const missing = (record as { missing?: unknown }).missing;
  if (missing === null || typeof missing !== 'object') return null;
  const { kind, table, key, pickup } = missing as Record<string, unknown>;
  if (typeof kind !== 'string' || typeof table !== 'string' || typeof key !== 'string') return null;
  return pickup === 'retry' || pickup === 'next_run' ? { kind, table, key, pickup } : { kind, table, key };
}

/** The letters of one flow held back for one missing mapping, and the fix that lets them through. */
export interface MissingMappingFixGroup {
  readonly flow: string;
  readonly missing: MissingMapping;
  /** The letters' ids, in the order given. */
  readonly ids: readonly number[];
  /** {@link missingMappingFix} for the flow: the sentence the notifications give. */
  readonly fix: string;
}

/**
 * The distinct missing mappings among `letters`, per flow, each with its fix: what `dead-letters list`, `status` and
 * the status page show beside the letters, so a person can act from any of them alone.
 */
export function missingMappingFixes(
  letters: readonly { readonly id: number; readonly flow: string; readonly record: unknown }[],
  configFile: string,
): MissingMappingFixGroup[] {
  const groups = new Map<string, { flow: string; missing: MissingMapping; ids: number[] }>();
  for (const letter of letters) {
    const missing = missingMappingOf(letter.record);
    if (missing === null) continue;
    const key = JSON.stringify([letter.flow, missing.table, missing.key, missing.pickup ?? 'next_run']);
    const group = groups.get(key) ?? { flow: letter.flow, missing, ids: [] };
    group.ids.push(letter.id);
    groups.set(key, group);
  }
  return [...groups.values()].map((group) => ({
    ...group,
    fix: missingMappingFix(group.missing, configFile, group.flow),
  }));
}

/** "#3, #4 (orders, skus value "VEG-0001" has no entry in mappings.skus)": which letters a fix is for. */
export function fixedLetters(group: MissingMappingFixGroup): string {
  return `${group.ids.map((id) => `#${id}`).join(', ')} (${group.flow}: ${missingMappingSummary(group.missing)})`;
}
