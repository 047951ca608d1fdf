/**
 * One company of an office as a single config document: the office's settings with the company file merged over
 * them. Every key is located in the file that wrote it, so a problem names the file a person has to change.
 */
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { DEFAULT_LOCAL_TOKEN_NAME } from './control-schema.js';
import { DEFAULT_STATE_PATH } from './schema.js';
import type { PathSegment } from './schema-walk.js';
import type { ConfigSource } from './source.js';

type Data = Record<string, unknown>;

function isPlainObject(value: unknown): value is Data {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Mappings merge key by key; a list or a single value replaces the office's; null removes the office's key. */
export function mergeOver(base: unknown, over: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(over)) return over;
  const out: Data = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === null) delete out[key];
    else out[key] = key in base ? mergeOver(base[key], value) : withoutNulls(value);
  }
  return out;
}

/** A null with nothing under it to remove is no value at all. */
function withoutNulls(value: unknown): unknown {
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, child]) => child !== null)
      .map(([key, child]) => [key, withoutNulls(child)]),
  );
}

/** `jobs.journal.options[0]` as the path segments it was formatted from. */
function pathSegments(formatted: string): PathSegment[] {
  return formatted
    .split(/\.|(?=\[)/)
    .filter((part) => part !== '')
    .map((part) => (/^\[\d+\]$/.test(part) ? Number(part.slice(1, -1)) : part));
}

function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let node = data;
  for (const key of path) {
    if (!isPlainObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

function hasPath(data: unknown, path: readonly PathSegment[]): boolean {
  return path.length === 0 || valueAt(data, path) !== undefined;
}

/** The office's own file paths, made absolute: relative paths in a company's config start at the company file. */
const OFFICE_FILE_PATHS: readonly (readonly string[])[] = [
  ['api', 'ca_file'],
  ...['tls', 'webhooks.tls'].flatMap((tls) =>
    ['cert_file', 'key_file', 'ca_file'].map((key) => ['server', ...tls.split('.'), key]),
  ),
];

function anchorOfficePaths(office: Data, officeFile: string): Data {
  const base = dirname(officeFile);
  const anchored = structuredClone(office);
  const anchor = (path: readonly string[]): void => {
    const parent = valueAt(anchored, path.slice(0, -1));
    const key = path[path.length - 1] as string;
    if (!isPlainObject(parent) || typeof parent[key] !== 'string') return;
    if (!isAbsolute(parent[key])) parent[key] = resolve(base, parent[key]);
  };
  OFFICE_FILE_PATHS.forEach(anchor);
  const channels = valueAt(anchored, ['notifications', 'channels']);
  if (isPlainObject(channels))
    for (const name of Object.keys(channels)) anchor(['notifications', 'channels', name, 'ca_file']);
  return anchored;
}

/** The folder of the office's state.path: the office's own control token, and companies/ under it. */
export function officeStateDir(office: Data, officeFile: string): string {
  return dirname(officeStatePath(office, officeFile));
}

/** The office file's own `state.path`: the office's command queue (companies keep theirs under its folder). */
export function officeStatePath(office: Data, officeFile: string): string {
  const state = valueAt(office, ['state', 'path']);
  return resolve(dirname(officeFile), typeof state === 'string' ? state : DEFAULT_STATE_PATH);
}

/** Where a company keeps what is its own by default: `<the office's state folder>/companies/<company>/`. */
export function companyFolder(office: Data, officeFile: string, company: string): string {
  return join(officeStateDir(office, officeFile), 'companies', company);
}

/** The office's part of the config (without `companies:`), as every company starts from it. */
export function officePart(office: ConfigSource): Data {
  const { companies: _companies, ...rest } = office.data as Data;
  return anchorOfficePaths(rest, office.file);
}

/** The company's own defaults: a state file and a control token in its own folder. */
function companyDefaults(folder: string): Data {
  return {
    state: { path: join(folder, 'state.db') },
    server: { control: { local_token_file: join(folder, DEFAULT_LOCAL_TOKEN_NAME) } },
  };
}

/** The merged document: office, then the company's defaults, then the company file. */
export function companySource(
  office: ConfigSource,
  officeData: Data,
  company: ConfigSource,
  folder: string,
): ConfigSource {
  const data = mergeOver(mergeOver(officeData, companyDefaults(folder)), company.data);
  const locate: ConfigSource['locate'] = (path, preferKey) => {
    if (hasPath(company.data, path) || !hasPath(office.data, path)) return company.locate(path, preferKey);
    const found = office.locate(path, preferKey);
    return found === undefined ? undefined : { ...found, file: office.file };
  };
  return {
    file: company.file,
    data,
    derived: new Map([...office.derived, ...company.derived]),
    // A key the company file sets is no longer the one the office file read from a file.
    fromFiles: [...office.fromFiles.filter((path) => !hasPath(company.data, path)), ...company.fromFiles],
    // A problem with an office value the company replaces (an unset ${ENV} of the office's key) is not its problem.
    issues: [
      ...office.issues.filter(
        (issue) => issue.path === '' || !hasPath(company.data, pathSegments(issue.path)),
      ),
      ...company.issues,
    ],
    locate,
  };
}
