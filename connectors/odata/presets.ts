import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { entitiesSchema, type OdataEntities, type PresetName } from './config.js';
import { PRIORITY_REST } from './presets/priority-rest.js';
import { SAP_B1_SERVICE_LAYER } from './presets/sap-b1-service-layer.js';

/**
 * Presets: the entity mapping of a vendor's published API, as YAML (connectors/odata/presets/*.ts, each YAML line on
 * the same line of its file), merged with the `entities` of the user's block. Every resolved setting keeps where it
 * came from, so doctor can name the preset line or the config key of a name the ERP does not have.
 */

const PRESETS: Record<PresetName, string> = {
  'sap-b1-service-layer': SAP_B1_SERVICE_LAYER,
  'priority-rest': PRIORITY_REST,
};

/** Where each setting came from, by its dotted path inside `entities` (`orders.header.U_ApiOrderId`). */
export type Origins = ReadonlyMap<string, string>;

export interface ResolvedEntities {
  readonly entities: OdataEntities;
  readonly origins: Origins;
}

type Plain = Record<string, unknown>;
const isPlain = (value: unknown): value is Plain =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The preset's mapping and the line of every setting in it. */
export function loadPreset(name: PresetName): { value: Plain; origins: Map<string, string> } {
  const lineCounter = new LineCounter();
  const document = parseDocument(PRESETS[name], { lineCounter });
  const origins = new Map<string, string>();
  const file = `connectors/odata/presets/${name}.ts`;
  const walk = (node: Node | null | undefined, at: string): void => {
    if (node === null || node === undefined) return;
    if (node.range !== undefined && node.range !== null) {
      origins.set(at, `preset ${name} (${file} line ${lineCounter.linePos(node.range[0]).line})`);
    }
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? String(pair.key.value) : '';
        walk(pair.value as Node, at === '' ? key : `${at}.${key}`);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => walk(item as Node, `${at}.${index}`));
    }
  };
  walk(document.contents as Node, '');
  return { value: document.toJS() as Plain, origins };
}

/** The user's overrides merged into the preset: objects merge key by key, lists and values replace, null drops. */
function merge(
  base: unknown,
  override: unknown,
  at: string,
  origins: Map<string, string>,
  keyOf: (path: string) => string,
): unknown {
  if (!isPlain(base) || !isPlain(override)) {
    for (const path of [...origins.keys()])
      if (path === at || path.startsWith(`${at}.`)) origins.delete(path);
    origins.set(at, keyOf(at));
    return override;
  }
  const merged: Plain = { ...base };
  for (const [key, value] of Object.entries(override)) {
    const path = at === '' ? key : `${at}.${key}`;
    if (value === null) delete merged[key];
    else
      merged[key] =
        key in base ? merge(base[key], value, path, origins, keyOf) : mergeNew(value, path, origins, keyOf);
  }
  return merged;
}

function mergeNew(
  value: unknown,
  at: string,
  origins: Map<string, string>,
  keyOf: (path: string) => string,
): unknown {
  origins.set(at, keyOf(at));
  if (isPlain(value))
    for (const [key, child] of Object.entries(value)) mergeNew(child, `${at}.${key}`, origins, keyOf);
  return value;
}

/** An `entities` block that cannot be used: the setting (inside `entities`), what is wrong, where it came from. */
export class EntitiesConfigError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
    readonly origin: string | undefined,
    configKey: string,
  ) {
    super(`${configKey}.entities.${path}: ${reason}${origin === undefined ? '' : ` (from ${origin})`}`);
    this.name = 'EntitiesConfigError';
  }
}

/**
 * The preset (if any) with the block's overrides, validated. `configKey` is the block's place in the config file
 * (`connectors.erp`; empty where it is not known), for the origins of overridden settings and for errors.
 */
export function resolveEntities(
  preset: PresetName | undefined,
  overrides: Readonly<Record<string, unknown>>,
  configKey: string,
): ResolvedEntities {
  const base = preset === undefined ? { value: {}, origins: new Map<string, string>() } : loadPreset(preset);
  const origins = base.origins;
  const keyOf = (path: string) => (configKey === '' ? `entities.${path}` : `${configKey}.entities.${path}`);
  const merged = merge(base.value, overrides, '', origins, keyOf);
  const parsed = entitiesSchema.safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = (issue?.path ?? []).join('.');
    const origin = originOf(origins, path);
    // A value set in the block itself needs no "from": the key already says where it is.
    const fromPreset = origin !== undefined && origin.startsWith('preset ') ? origin : undefined;
    throw new EntitiesConfigError(path, issue?.message ?? 'invalid', fromPreset, configKey);
  }
  return { entities: parsed.data, origins };
}

/** The origin of a setting, or of the nearest enclosing one that has an origin. */
export function originOf(origins: Origins, path: string): string | undefined {
  for (let at = path; ; at = at.slice(0, Math.max(0, at.lastIndexOf('.')))) {
    const origin = origins.get(at);
    if (origin !== undefined) return origin;
    if (at === '') return undefined;
  }
}
