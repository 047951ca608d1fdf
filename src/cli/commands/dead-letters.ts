/** `supply-sync dead-letters list|retry|discard`: records a flow could not process, with the reason. */
import type { CommandSpec, Invocation } from '../command-spec.js';
import { deepScrub, scrubSecrets } from '../../log/index.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { giveStateCommand } from '../control.js';
import { openStateForReading, withState } from '../state-access.js';
import { labelledTime } from '../../ops/time-format.js';
import { fixedLetters, missingMappingFixes } from '../../shared/missing-mapping.js';
import type { DeadLetter } from '../../state/index.js';

type Target = { id: number } | { flow: string; missing?: { table: string; key: string } };

function target(id: string | undefined, options: { flow?: string; missing?: string }): Target {
  const { flow } = options;
  if (id !== undefined && flow === undefined && options.missing === undefined && /^\d+$/.test(id)) {
    return { id: Number(id) };
  }
  if (id === undefined && flow !== undefined) {
    return options.missing === undefined ? { flow } : { flow, missing: missingEntry(options.missing) };
  }
  throw new CliError(
    'give one dead letter id, or --flow NAME for all of a flow (with --missing TABLE:VALUE for those held back for one mapping)',
    'usage',
    EXIT_USAGE,
  );
}

/** `skus:VEG-0001`: the table under `mappings:` and the value it lacks, as the notifications name them. */
function missingEntry(text: string): { table: string; key: string } {
  const colon = text.indexOf(':');
  if (colon > 0 && colon < text.length - 1)
    return { table: text.slice(0, colon), key: text.slice(colon + 1) };
  throw new CliError(
    `--missing expects TABLE:VALUE, for example skus:VEG-0001 (got ${JSON.stringify(text)})`,
    'usage',
    EXIT_USAGE,
  );
}

/**
 * The letters with their reason and last time (in the configured zone, labelled), then for each missing mapping
 * among them the fix: the sentence the notifications give, so the list alone says what to do.
 */
function printLetters(
  context: CliContext,
  letters: readonly DeadLetter[],
  options: { file: string; timeZone: string | undefined; json: boolean | undefined },
): void {
  // Discarded and resolved letters (with --all) need no fix.
  const waiting = letters.filter((l) => l.status === 'open' || l.status === 'retrying');
  const fixes = missingMappingFixes(waiting, options.file);
  // A reason can quote what the API or the ERP answered: the config's secrets are replaced, as in the control API.
  if (options.json) {
    const fixOf = (id: number) => fixes.find((group) => group.ids.includes(id))?.fix;
    const shown = letters.map((l) => {
      const fix = fixOf(l.id);
      return fix === undefined ? l : { ...l, fix };
    });
    return context.output.line(JSON.stringify(deepScrub(shown, context.secrets), null, 2));
  }
  if (letters.length === 0) return context.output.line('no dead letters');
  for (const l of letters) {
    context.output.line(
      `#${l.id} ${l.flow} ${l.recordKey} [${l.status}, ${l.attempts} attempt${l.attempts === 1 ? '' : 's'}, last ${labelledTime(l.lastSeen, options.timeZone)}]: ` +
        scrubSecrets(l.reason, context.secrets),
    );
  }
  for (const group of fixes) {
    context.output.line(scrubSecrets(`To fix ${fixedLetters(group)}: ${group.fix}.`, context.secrets));
  }
}

async function listLetters({
  context,
  options,
  command,
}: Invocation<{ flow?: string; all?: boolean; json?: boolean }>): Promise<void> {
  const loaded = await loadCliConfig(context, globalOptions(command));
  const { config } = loaded;
  const letters = await withState(
    () => openStateForReading(config.state),
    (state) =>
      state.deadLetters.list({
        ...(options.flow === undefined ? {} : { flow: options.flow }),
        ...(options.all ? { statuses: ['open', 'retrying', 'discarded', 'resolved'] as const } : {}),
      }),
  );
  // Letters of a job since removed from the config are still listed by its name; a name that matches nothing is a slip.
  if (options.flow !== undefined && letters.length === 0 && config.jobs[options.flow] === undefined) {
    const known = Object.keys(config.jobs).join(', ') || 'none';
    throw new CliError(
      `no job "${options.flow}" in ${loaded.file} (jobs: ${known}); --flow takes the job's name`,
      'unknown_job',
    );
  }
  printLetters(context, letters, { file: loaded.file, timeZone: config.timezone, json: options.json });
}

/** `dead-letters retry|discard`: one dead letter by id, or a flow's open ones. */
function changeCommand(name: 'retry' | 'discard', verb: string, description: string): CommandSpec {
  return {
    name,
    description,
    arguments: [{ name: '[id]', description: 'dead letter id from `dead-letters list`' }],
    options: [
      { flags: '--flow <name>', description: 'every open dead letter of this flow' },
      {
        flags: '--missing <table:value>',
        description: 'with --flow: only those held back for this missing mapping',
      },
    ],
    async run({ context, args, options, command }: Invocation<{ flow?: string; missing?: string }>) {
      const which = target(args[0], options);
      const loaded = await loadCliConfig(context, globalOptions(command));
      const given = await giveStateCommand(
        context,
        loaded,
        { kind: `dead-letters.${name}`, target: which },
        `dead-letters ${name}`,
      );
      const count = given.via === 'queued' ? 0 : (given.result as { count: number }).count;
      context.output.line(`${count} dead letter${count === 1 ? '' : 's'} ${verb}`);
    },
  };
}

export const DEAD_LETTER_COMMANDS: CommandSpec = {
  name: 'dead-letters',
  description: 'list, retry or discard records that could not be synced',
  subcommands: [
    {
      name: 'list',
      description: 'open and retrying dead letters with their reason',
      options: [
        { flags: '--flow <name>', description: 'only this flow' },
        { flags: '--all', description: 'include discarded and resolved ones' },
        { flags: '--json', description: 'print JSON' },
      ],
      run: listLetters,
    },
    changeCommand(
      'retry',
      'queued for retry',
      "queue for the flow's next run (after fixing the cause, e.g. a mapping)",
    ),
    changeCommand('discard', 'discarded', 'give up on them; they stay listed with --all'),
  ],
};
