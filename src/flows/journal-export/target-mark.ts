/**
 * The writer's mark of its target (see TargetMark), kept in the state per accounting connector: checked before a
 * run writes anything, saved with every batch written. It is saved after the write, so a crash in between leaves it
 * behind the target, never ahead of it.
 */
import type { AccountingWriter } from '../../connector-contract/capabilities.js';
import type { StateStore } from '../../state/index.js';

const NAMESPACE = 'journal-export.target-mark';

function savedMark(state: StateStore, connectorName: string): string | null {
  const saved = state.kv.get(NAMESPACE, connectorName);
  return typeof saved === 'string' ? saved : null;
}

/** Throws the writer's error when the target is not the one written to before; changes nothing (the dry run). */
export async function checkTargetMark(
  state: StateStore,
  writer: AccountingWriter,
  connectorName: string,
): Promise<void> {
  await writer.targetMark?.verify(savedMark(state, connectorName));
}

/** As checkTargetMark, and keeps the mark it recognised. */
export async function verifyTargetMark(
  state: StateStore,
  writer: AccountingWriter,
  connectorName: string,
): Promise<void> {
  if (writer.targetMark === undefined) return;
  await checkTargetMark(state, writer, connectorName);
  if (writer.targetMark.current() !== savedMark(state, connectorName))
    saveTargetMark(state, writer, connectorName);
}

/** Saves the writer's current mark; call in the transaction that notes a batch written. */
export function saveTargetMark(state: StateStore, writer: AccountingWriter, connectorName: string): void {
  const current = writer.targetMark?.current() ?? null;
  if (current !== null) state.kv.set(NAMESPACE, connectorName, current);
}
