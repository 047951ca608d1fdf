/**
 * A state written by another release, on either backend, named as the config names it: the key that points at it
 * and how the message calls it (`state file <path>`, or `state.url: the database <location>`).
 */
export interface StateNaming {
  readonly key: 'state.path' | 'state.url';
  readonly subject: string;
}

export const stateFileNaming = (file: string): StateNaming => ({ key: 'state.path', subject: `state file ${file}` });
export const stateDatabaseNaming = (location: string): StateNaming => ({
  key: 'state.url',
  subject: `state.url: the database ${location}`,
});

/** A state written by a newer release; the message names the key to change and the way out. */
export class StateSchemaTooNewError extends Error {
  readonly code = 'state_schema_too_new';
  readonly key: StateNaming['key'];
  constructor(
    readonly found: number,
    supported: number,
    naming: StateNaming,
  ) {
    const elsewhere = naming.key === 'state.url' ? 'another database' : 'another file';
    super(
      `${naming.subject} has state schema version ${found}, newer than this release supports (${supported}); ` +
        `upgrade supply-sync on this host, or point ${naming.key} at ${elsewhere}`,
    );
    this.name = 'StateSchemaTooNewError';
    this.key = naming.key;
  }
}

/** A read-only open of a state the daemon has not migrated to this release yet (or not created yet: 0). */
export class StateSchemaOutdatedError extends Error {
  readonly code = 'state_schema_outdated';
  constructor(
    /** 0: the state holds no schema yet (no daemon has run on it). */
    readonly found: number,
    expected: number,
    naming: StateNaming,
  ) {
    super(
      `${naming.subject} has state schema version ${found}, this release expects ${expected}; ` +
        'start the daemon once to migrate it',
    );
    this.name = 'StateSchemaOutdatedError';
  }
}
