/** One problem in a config file, with where it is and what was expected. */
export interface ConfigIssue {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  /** Dotted key path, e.g. `jobs.orders.schedule`; empty for file-level problems. */
  readonly path: string;
  readonly message: string;
}

export function formatIssue(issue: ConfigIssue): string {
  const where =
    issue.line === undefined
      ? issue.file
      : `${issue.file}:${issue.line}${issue.column === undefined ? '' : `:${issue.column}`}`;
  return issue.path === '' ? `${where}: ${issue.message}` : `${where} ${issue.path}: ${issue.message}`;
}

/** A config that cannot be used. The message lists every issue; it never contains a secret value. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'config_invalid';
  readonly issues: readonly ConfigIssue[];

  constructor(issues: readonly ConfigIssue[]) {
    super(issues.map(formatIssue).join('\n'));
    this.issues = issues;
  }
}

export function formatPath(path: readonly (string | number)[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? key : `.${key}`;
  }
  return text;
}
