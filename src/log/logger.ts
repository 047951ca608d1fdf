import { pino } from 'pino';
import type { DestinationStream, Logger, LevelWithSilent } from 'pino';
import { deepScrub } from './deep-scrub.js';
import { prettyStream } from './pretty.js';
import { buildRedactPaths } from './redaction.js';
import { REDACTED, scrubSecrets } from './scrub.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level?: LevelWithSilent;
  /** Logger name (the `name` field of every line). */
  name?: string;
  /** Extra redaction paths, e.g. derived from the config schema's secret fields (`connectors.erp.password`). */
  redactPaths?: Iterable<string>;
  /**
   * Secret values known at start (API key, client secret, webhook secrets, DB passwords): replaced wherever
   * they appear in a string. A function is read on every line, so rotated secrets are covered.
   */
  knownSecrets?: readonly string[] | (() => readonly string[]);
  /** Where lines go; stdout by default. Tests pass a capture stream. */
  destination?: DestinationStream;
  /** Human-readable lines instead of JSON (see pretty.ts), to the destination or stdout. */
  pretty?: boolean;
  /** Time zone of the times on pretty lines; the machine's by default. */
  timeZone?: string;
}

/**
 * A pino logger that never writes a secret: pino path redaction for known fields and config secret paths, a
 * key-name censor at any depth, and a text scrub of every string (messages, error messages and stacks).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const secretsOption = options.knownSecrets;
  const knownSecrets = (): readonly string[] =>
    typeof secretsOption === 'function' ? secretsOption() : (secretsOption ?? []);
  const pinoOptions: pino.LoggerOptions = {
    level: options.level ?? 'info',
    redact: { paths: buildRedactPaths(options.redactPaths), censor: REDACTED },
    // Errors are turned into scrubbed plain objects by the log formatter; the standard serializer would retype them.
    serializers: { err: (value: unknown) => value },
    formatters: {
      log: (object) => deepScrub(object, knownSecrets()) as Record<string, unknown>,
      bindings: (bindings) => deepScrub(bindings, knownSecrets()) as Record<string, unknown>,
    },
    hooks: {
      logMethod(args, method) {
        const scrubbed: unknown[] = args.map((arg: unknown) =>
          typeof arg === 'string' ? scrubSecrets(arg, knownSecrets()) : arg,
        );
        // pino takes an Error's raw message as the line's msg when none is given; give it the scrubbed one.
        const [first, second] = scrubbed;
        if (first instanceof Error && typeof second !== 'string') {
          scrubbed.splice(1, 0, scrubSecrets(first.message, knownSecrets()));
        }
        method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
  };
  if (options.name !== undefined) pinoOptions.name = options.name;
  if (options.pretty === true) {
    return pino(pinoOptions, prettyStream(options.destination ?? process.stdout, options.timeZone));
  }
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}
