/**
 * The CLI's commands as data: each command group is a table of specs (name, description, arguments, options and
 * the handler), which `registerCommands` hands to commander, as CONTROL_ROUTES is for the control API.
 */
import { Option, type Command } from 'commander';
import type { CliContext } from './context.js';

export interface OptionSpec {
  /** Commander's flags, e.g. `--job <name>` or `--no-wait`. */
  readonly flags: string;
  readonly description: string;
  readonly required?: boolean;
  /** Turns the text given into the option's value. */
  readonly parse?: (value: string) => unknown;
  /** An environment variable that gives the value when the option is absent. */
  readonly env?: string;
  readonly default?: unknown;
}

export interface ArgumentSpec {
  /** Commander's notation: `<job>` required, `[endpoint]` optional. */
  readonly name: string;
  readonly description: string;
}

/** What a handler receives: the parsed arguments and options, the command itself and the CLI's context. */
export interface Invocation<Options extends object = object> {
  readonly context: CliContext;
  readonly args: readonly (string | undefined)[];
  readonly options: Options;
  readonly command: Command;
}

export interface CommandSpec {
  readonly name: string;
  readonly description: string;
  readonly arguments?: readonly ArgumentSpec[];
  readonly options?: readonly OptionSpec[];
  readonly subcommands?: readonly CommandSpec[];
  // Method syntax: each handler names the options it reads.
  run?(invocation: Invocation): Promise<void>;
}

function commanderOption(spec: OptionSpec): Option {
  const option = new Option(spec.flags, spec.description);
  if (spec.required === true) option.makeOptionMandatory();
  if (spec.parse !== undefined) {
    const parse = spec.parse;
    option.argParser((value: string) => parse(value));
  }
  if (spec.env !== undefined) option.env(spec.env);
  if (spec.default !== undefined) option.default(spec.default);
  return option;
}

/** Adds each spec, and its subcommands, to the parent command in the table's order. */
export function registerCommands(parent: Command, specs: readonly CommandSpec[], context: CliContext): void {
  for (const spec of specs) {
    const command = parent.command(spec.name).description(spec.description);
    for (const argument of spec.arguments ?? []) command.argument(argument.name, argument.description);
    for (const option of spec.options ?? []) command.addOption(commanderOption(option));
    if (spec.run !== undefined) {
      // Commander passes the command itself last, after the arguments and the options.
      command.action(async (...params: unknown[]) => {
        const invoked = params[params.length - 1] as Command;
        await spec.run?.({
          context,
          args: invoked.processedArgs as (string | undefined)[],
          options: invoked.opts(),
          command: invoked,
        });
      });
    }
    registerCommands(command, spec.subcommands ?? [], context);
  }
}

/** A required argument's value: commander refuses the command before its handler when one is missing. */
export function requiredArgument(args: readonly (string | undefined)[], index: number): string {
  const value = args[index];
  if (value === undefined) throw new Error(`required argument ${index + 1} is missing`);
  return value;
}
