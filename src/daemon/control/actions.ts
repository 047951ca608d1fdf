/**
 * The operator actions a running daemon carries out for the CLI and the control API, and the same actions carried
 * out directly when no daemon holds the state: one definition of each, so the outcome is the same either way.
 */
export type DeadLetterTarget =
  | { id: number }
  | { flow: string; reason?: string; missing?: { table: string; key: string }; ids?: number[] };

export type ControlAction =
  | { kind: 'dead-letters.retry'; target: DeadLetterTarget }
  | { kind: 'dead-letters.discard'; target: DeadLetterTarget }
  | { kind: 'cursor.reset'; stream: string }
  | { kind: 'jobs.pause'; job: string; reason: string | null }
  | { kind: 'jobs.resume'; job: string }
  | { kind: 'sync'; job: string }
  | { kind: 'webhooks.register'; url: string; events: string[]; description?: string }
  | { kind: 'webhooks.recover'; endpoint?: string; since?: string; dryRun: boolean }
  | { kind: 'webhooks.retire-secrets' }
  | { kind: 'webhooks.test'; endpoint?: string }
  | { kind: 'catalog.remove'; skus: string[]; stateCheck: boolean }
  | { kind: 'config.reload' };

export type ControlKind = ControlAction['kind'];

const KINDS: ReadonlySet<string> = new Set<ControlKind>([
  'dead-letters.retry',
  'dead-letters.discard',
  'cursor.reset',
  'jobs.pause',
  'jobs.resume',
  'sync',
  'webhooks.register',
  'webhooks.recover',
  'webhooks.retire-secrets',
  'webhooks.test',
  'catalog.remove',
  'config.reload',
]);

/** Actions whose effect is a change of the state alone: carried out and recorded in one transaction. */
export const STATE_ACTIONS: ReadonlySet<ControlKind> = new Set<ControlKind>([
  'dead-letters.retry',
  'dead-letters.discard',
  'cursor.reset',
  'jobs.pause',
  'jobs.resume',
  'webhooks.retire-secrets',
]);

export function isControlKind(kind: string): kind is ControlKind {
  return KINDS.has(kind);
}

/** What an action cannot do, with a stable code (the CLI prints it, the control API maps it to a status). */
export class ControlError extends Error {
  override readonly name = 'ControlError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The action as the queue keeps it: its kind, and the rest as arguments. */
export function actionArgs(action: ControlAction): Record<string, unknown> {
  const { kind: _kind, ...args } = action;
  return args;
}

export function actionFrom(kind: string, args: Record<string, unknown>): ControlAction {
  if (!isControlKind(kind)) throw new ControlError('unknown_command', `unknown command "${kind}"`);
  return { kind, ...args } as ControlAction;
}
