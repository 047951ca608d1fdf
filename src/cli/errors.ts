/** Errors the CLI reports as one line with a stable code, and the exit codes they map to. */
import { ApiEndpointError } from '../api-access/index.js';
import { ConfigError } from '../config/index.js';

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** The command was queued for the daemon and is not finished: the CLI stopped waiting (a signal, no daemon). */
export const EXIT_QUEUED = 3;

export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly code: string,
    readonly exitCode: number = EXIT_FAILURE,
  ) {
    super(message);
  }
}

export interface ReportOptions {
  readonly debug: boolean;
  /** Secret values to scrub from anything printed. */
  readonly secrets: readonly string[];
  readonly write: (text: string) => void;
}

/** Replaces every secret value in `text` (values shorter than 4 characters are left: too many false hits). */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const value of secrets) if (value.length >= 4) out = out.split(value).join('[redacted]');
  return out;
}

/** Prints an error the user can act on and returns the exit code. Stack traces only with --debug. */
export function reportError(error: unknown, options: ReportOptions): number {
  if (error instanceof ConfigError) {
    options.write(`${scrub(error.message, options.secrets)}\n`);
    options.write(
      `config is invalid (${error.code}): ${error.issues.length} problem${error.issues.length === 1 ? '' : 's'}\n`,
    );
    return EXIT_USAGE;
  }
  const message = error instanceof Error ? error.message : String(error);
  const code =
    error instanceof CliError
      ? error.code
      : typeof (error as { code?: unknown }).code === 'string'
        ? String((error as { code: string }).code)
        : 'internal_error';
  options.write(`error: ${scrub(message, options.secrets)} (${code})\n`);
  if (options.debug && error instanceof Error && error.stack)
    options.write(`${scrub(error.stack, options.secrets)}\n`);
  if (error instanceof ApiEndpointError) return EXIT_USAGE; // the config lacks the API's address or key
  return error instanceof CliError ? error.exitCode : EXIT_FAILURE;
}
