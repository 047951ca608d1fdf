/** `supply-sync state migrate`: moves the state from the SQLite file to a PostgreSQL database. */
import { existsSync } from 'node:fs';
import type { CommandSpec, Invocation } from '../command-spec.js';
import { systemClock } from '../../shared/clock.js';
import { copySqliteState, TargetNotEmptyError } from '../../state/copy-state.js';
import {
  StateLockedError,
  openPgStateStore,
  openStateStore,
  type PgStateStore,
  type SqliteStateStore,
} from '../../state/index.js';
import { describePgUrl } from '../../state/postgres/location.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { CliError, EXIT_USAGE } from '../errors.js';

const POSTGRES_URL = /^postgres(ql)?:\/\/[^/]/;

/** The URL and its password go on the list of values scrubbed from anything printed. */
function rememberSecrets(context: CliContext, url: string): void {
  context.secrets.push(url);
  try {
    const password = decodeURIComponent(new URL(url).password);
    if (password !== '') context.secrets.push(password);
  } catch {
    // An unparsable URL is refused by the driver; the whole string is scrubbed already.
  }
}

function openSource(file: string): SqliteStateStore {
  if (!existsSync(file)) {
    throw new CliError(
      `state.path: the state file ${file} does not exist; there is nothing to migrate`,
      'state_missing',
    );
  }
  try {
    return openStateStore({ file, clock: systemClock });
  } catch (error) {
    if (error instanceof StateLockedError) {
      throw new CliError(`${error.message}; stop the daemon before migrating its state`, 'state_locked');
    }
    throw error;
  }
}

function openTarget(url: string, key: string): PgStateStore {
  try {
    return openPgStateStore({ url, clock: systemClock });
  } catch (error) {
    // The target may come from --to rather than the config: name what the user gave.
    if (error instanceof Error && error.message.startsWith('state.url:') && key !== 'state.url') {
      throw new CliError(`${key}:${error.message.slice('state.url:'.length)}`, 'state_database_unavailable');
    }
    throw error;
  }
}

async function migrate({ context, options, command }: Invocation<{ to?: string }>): Promise<void> {
  const { config } = await loadCliConfig(context, globalOptions(command));
  const key = options.to === undefined ? 'state.url' : '--to';
  const url = options.to ?? config.state.url;
  if (url === undefined) {
    throw new CliError(
      'give the target database with --to postgres://... or set state.url',
      'usage',
      EXIT_USAGE,
    );
  }
  rememberSecrets(context, url);
  if (!POSTGRES_URL.test(url)) {
    throw new CliError(
      `${key}: expected a PostgreSQL URL, postgres://user:password@host:port/database`,
      'usage',
      EXIT_USAGE,
    );
  }
  // The lock first: the daemon must not write the file while it is copied, nor start meanwhile.
  const source = openSource(config.state.path);
  try {
    const target = openTarget(url, key);
    try {
      const copies = copySqliteState(source.db, target.db);
      context.output.line(`copied ${source.file} into ${describePgUrl(url)}:`);
      for (const { table, rows } of copies) context.output.line(`  ${table.padEnd(14)} ${rows} rows`);
      context.output.line(
        'next: set state.url to this database in the config and start the daemon; keep the file as a backup',
      );
    } catch (error) {
      if (error instanceof TargetNotEmptyError) {
        throw new CliError(`${key}: ${describePgUrl(url)}: ${error.message}`, error.code);
      }
      throw error;
    } finally {
      target.close();
    }
  } finally {
    source.close();
  }
}

export const STATE_COMMANDS: CommandSpec = {
  name: 'state',
  description: 'move the daemon state between backends',
  subcommands: [
    {
      name: 'migrate',
      description:
        'copy the SQLite state file (state.path) into an empty PostgreSQL database; stop the daemon first, ' +
        'then set state.url and start it again',
      options: [
        {
          flags: '--to <url>',
          description:
            'the PostgreSQL database, postgres://user:password@host:port/database (default: state.url of the config)',
        },
      ],
      run: migrate,
    },
  ],
};
