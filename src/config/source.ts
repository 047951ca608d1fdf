/** Reading a config file: YAML (or JSON) with positions, `${ENV}` substitution and `*_file` secrets. */
import { dirname, resolve } from 'node:path';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document } from 'yaml';
import { formatPath, type ConfigIssue } from './errors.js';
import type { PathSegment } from './schema-walk.js';

export interface SourceOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly readFile: (path: string) => string;
  /** Whether the value at a path is a list (a `*_file` then holds one entry per line). */
  readonly expectsList?: (path: readonly PathSegment[], raw: unknown) => boolean;
  /** Whether the schema declares this key itself (api.ca_file is a path, not a secret read from a file). */
  readonly isDeclaredKey?: (path: readonly PathSegment[], raw: unknown) => boolean;
}

export interface ConfigSource {
  readonly file: string;
  readonly data: unknown;
  /** Paths whose values came from the environment or a file: never echoed in messages. */
  readonly derived: ReadonlyMap<string, string>;
  /** Paths filled from `<key>_file`, so the loader can check the target is a secret field. */
  readonly fromFiles: readonly (readonly PathSegment[])[];
  readonly issues: readonly ConfigIssue[];
  /** Where a key is written; `file` when it is another file than `file` above (an office's part of a company). */
  locate(
    path: readonly PathSegment[],
    preferKey?: boolean,
  ): { file?: string; line: number; column: number } | undefined;
}

const ENV_REF = /\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

function makeLocator(doc: Document, counter: LineCounter) {
  return (path: readonly PathSegment[], preferKey = false) => {
    let node: unknown = doc.contents;
    let position: number | undefined = (doc.contents as { range?: number[] } | null)?.range?.[0];
    for (let i = 0; i < path.length; i++) {
      const key = path[i];
      if (isMap(node)) {
        const pair =
          node.items.find((item) => isScalar(item.key) && String(item.key.value) === String(key)) ??
          (i === path.length - 1
            ? node.items.find(
                (item) => isScalar(item.key) && String(item.key.value) === `${String(key)}_file`,
              )
            : undefined);
        if (!pair) break;
        const keyStart = (pair.key as { range?: number[] }).range?.[0];
        const valueStart = (pair.value as { range?: number[] } | null)?.range?.[0];
        position = i === path.length - 1 && preferKey ? keyStart : (valueStart ?? keyStart);
        node = pair.value;
      } else if (isSeq(node) && typeof key === 'number') {
        const item = node.items[key] as { range?: number[] } | undefined;
        if (!item) break;
        position = item.range?.[0] ?? position;
        node = item;
      } else break;
    }
    if (position === undefined) return undefined;
    const { line, col } = counter.linePos(position);
    return { line, column: col };
  };
}

type Locate = ConfigSource['locate'];

/** What reading the document gathers besides the data: problems, and which values came from elsewhere. */
class SourceFindings {
  readonly issues: ConfigIssue[] = [];
  readonly derived = new Map<string, string>();
  readonly fromFiles: PathSegment[][] = [];

  constructor(
    readonly file: string,
    readonly locate: Locate,
  ) {}

  add(path: readonly PathSegment[], message: string, preferKey = false): void {
    this.issues.push({ file: this.file, ...this.locate(path, preferKey), path: formatPath(path), message });
  }

  /** The source as read: without data when there is any problem at this stage. */
  source(data: unknown): ConfigSource {
    const { file, derived, fromFiles, issues, locate } = this;
    return { file, data, derived, fromFiles, issues, locate };
  }
}

/** YAML syntax errors, one per line. */
function yamlIssues(file: string, doc: Document): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const linesWithErrors = new Set<number>();
  for (const error of doc.errors) {
    const pos = error.linePos?.[0];
    if (pos && linesWithErrors.has(pos.line)) continue;
    if (pos) linesWithErrors.add(pos.line);
    const firstLine = (error.message.split('\n')[0] ?? error.message).replace(
      / at line \d+, column \d+:?$/,
      '',
    );
    const hint = /alias/i.test(firstLine)
      ? ' (a value starting with * must be quoted, e.g. "*/5 * * * *")'
      : '';
    issues.push({
      file,
      ...(pos ? { line: pos.line, column: pos.col } : {}),
      path: '',
      message: `YAML: ${firstLine}${hint}`,
    });
  }
  return issues;
}

/** Replaces `${NAME}` and `${NAME:-fallback}` from the environment; `$${` stands for a literal `${`. */
function substitute(
  value: string,
  path: PathSegment[],
  env: SourceOptions['env'],
  findings: SourceFindings,
): string {
  const missing: string[] = [];
  const used: string[] = [];
  const result = value.replace(ENV_REF, (match, name: string | undefined, fallback: string | undefined) => {
    if (name === undefined) return '${';
    used.push(name);
    const found = env[name];
    if (found !== undefined && found !== '') return found;
    if (fallback !== undefined) return fallback;
    missing.push(name);
    return match;
  });
  for (const name of missing) {
    findings.add(
      path,
      `environment variable ${name} is not set (referenced as \${${name}}); set it or remove the reference`,
    );
  }
  if (used.length > 0) findings.derived.set(formatPath(path), `from \${${used.join('}, ${')}}`);
  return result;
}

interface Walk {
  readonly file: string;
  readonly options: SourceOptions;
  readonly raw: unknown;
  readonly findings: SourceFindings;
}

/** Replaces `<target>_file` in `out` by `<target>` holding the file's content (a list: one entry a line). */
function readSecretFile(walk: Walk, out: Record<string, unknown>, path: PathSegment[], key: string): void {
  const { options, findings } = walk;
  const target = key.slice(0, -5);
  const filePath = out[key];
  if (typeof filePath !== 'string') return;
  if (target in out) {
    findings.add([...path, key], `give either ${target} or ${key}, not both`, true);
    return;
  }
  const absolute = resolve(dirname(walk.file), filePath);
  const targetPath = [...path, target];
  let content: string;
  try {
    content = options.readFile(absolute);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    const fix =
      code === 'ENOENT'
        ? "check the path (relative paths start at the config file's folder)"
        : 'make the file readable by the user running supply-sync';
    findings.add([...path, key], `cannot read secret file ${absolute} (${code}): ${fix}`);
    return;
  }
  delete out[key];
  out[target] = options.expectsList?.(targetPath, walk.raw)
    ? content.split(/\r?\n/).filter((line) => line.trim() !== '')
    : content.replace(/\r?\n$/, '');
  findings.derived.set(formatPath(targetPath), `from file ${absolute}`);
  findings.fromFiles.push(targetPath);
}

function walkValue(walk: Walk, value: unknown, path: PathSegment[]): unknown {
  if (typeof value === 'string') return substitute(value, path, walk.options.env, walk.findings);
  if (Array.isArray(value)) return value.map((item, index) => walkValue(walk, item, [...path, index]));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) out[key] = walkValue(walk, child, [...path, key]);
  for (const key of Object.keys(out)) {
    if (!key.endsWith('_file') || key.length <= 5) continue;
    if (walk.options.isDeclaredKey?.([...path, key], walk.raw)) continue;
    readSecretFile(walk, out, path, key);
  }
  return out;
}

export function readConfigSource(file: string, text: string, options: SourceOptions): ConfigSource {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: true, uniqueKeys: true });
  const findings = new SourceFindings(file, makeLocator(doc, counter));
  findings.issues.push(...yamlIssues(file, doc));
  if (findings.issues.length > 0) return findings.source(undefined);

  let raw: unknown;
  try {
    raw = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    const reason =
      error instanceof Error ? (error.message.split('\n')[0] ?? error.message) : 'unreadable document';
    findings.issues.push({ file, path: '', message: `YAML: ${reason}` });
    return findings.source(undefined);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    findings.issues.push({
      file,
      path: '',
      message: 'expected a mapping of settings at the top level (api, connectors, jobs, ...)',
    });
    return findings.source(undefined);
  }
  return findings.source(walkValue({ file, options, raw, findings }, raw, []));
}
