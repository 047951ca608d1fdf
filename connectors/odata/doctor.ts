import { closestMatch } from '../../src/config/did-you-mean.js';
import type { CapabilityName } from '../../src/connector-contract/capabilities.js';
import type { PreflightProblem } from '../../src/connector-contract/connector.js';
import type { OdataEntities, ReadField, ReadSection, WriteValue } from './config.js';
import { filterProperties } from './literals.js';
import type { ServiceModel, TypeModel } from './metadata.js';
import { originOf, type Origins } from './presets.js';

/** One configured name the service's $metadata does not have. */
interface Missing {
  readonly capability: CapabilityName;
  /** The setting inside `entities`, e.g. `orders.header.U_ApiOrderId`. */
  readonly setting: string;
  readonly name: string;
  readonly kind: 'entity set' | 'property' | 'action';
  readonly on: string;
  readonly candidates: readonly string[];
}

/** Checks the names of one entity type, collecting what is missing. */
class TypeCheck {
  constructor(
    private readonly model: ServiceModel,
    private readonly missing: Missing[],
    private readonly capability: CapabilityName,
  ) {}

  entitySet(name: string, setting: string): TypeModel | undefined {
    const typeName = this.model.entitySets.get(name);
    const type = typeName === undefined ? undefined : this.model.types.get(typeName);
    if (type === undefined)
      this.#miss(setting, name, 'entity set', 'the service', [...this.model.entitySets.keys()]);
    return type;
  }

  property(type: TypeModel, typeName: string, name: string, setting: string): void {
    if (!type.properties.has(name)) this.#miss(setting, name, 'property', typeName, [...type.properties]);
  }

  /** The item type of a collection property, or undefined (recorded) when it is missing. */
  child(type: TypeModel, typeName: string, name: string, setting: string): TypeModel | undefined {
    this.property(type, typeName, name, setting);
    const child = type.children.get(name);
    return child === undefined ? undefined : this.model.types.get(child);
  }

  paths(
    type: TypeModel,
    typeName: string,
    fields: Readonly<Record<string, ReadField>>,
    setting: string,
  ): void {
    for (const [field, spec] of Object.entries(fields)) {
      const [first = '', second] = (typeof spec === 'string' ? spec : spec.path).split('/');
      const inner =
        second === undefined ? undefined : this.child(type, typeName, first, `${setting}.${field}`);
      if (second === undefined) this.property(type, typeName, first, `${setting}.${field}`);
      else if (inner !== undefined) this.property(inner, first, second, `${setting}.${field}`);
    }
  }

  writes(
    type: TypeModel,
    typeName: string,
    mapping: Readonly<Record<string, WriteValue>>,
    setting: string,
  ): void {
    for (const property of Object.keys(mapping))
      this.property(type, typeName, property, `${setting}.${property}`);
  }

  filter(type: TypeModel, typeName: string, filter: string | undefined, setting: string): void {
    for (const name of filter === undefined ? [] : filterProperties(filter))
      this.property(type, typeName, name, setting);
  }

  action(name: string, setting: string): void {
    if (!this.model.actions.has(name))
      this.#miss(setting, name, 'action', 'the service', [...this.model.actions]);
  }

  #miss(setting: string, name: string, kind: Missing['kind'], on: string, candidates: string[]): void {
    this.missing.push({ capability: this.capability, setting, name, kind, on, candidates });
  }
}

function checkOrders(
  model: ServiceModel,
  orders: NonNullable<OdataEntities['orders']>,
  missing: Missing[],
): void {
  const check = new TypeCheck(model, missing, 'orderSink');
  const type = check.entitySet(orders.entity_set, 'orders.entity_set');
  if (type === undefined) return;
  const on = orders.entity_set;
  orders.key.forEach((key, index) => check.property(type, on, key, `orders.key.${index}`));
  check.property(type, on, orders.erp_number, 'orders.erp_number');
  if (orders.status !== undefined) check.property(type, on, orders.status, 'orders.status');
  if (orders.cancelled !== undefined)
    check.property(type, on, orders.cancelled.property, 'orders.cancelled.property');
  check.filter(type, on, orders.find_filter, 'orders.find_filter');
  check.writes(type, on, orders.header, 'orders.header');
  const lines = check.child(type, on, orders.lines_property, 'orders.lines_property');
  if (lines !== undefined) check.writes(lines, orders.lines_property, orders.line, 'orders.line');
  if (orders.cancel !== undefined && 'action' in orders.cancel)
    check.action(orders.cancel.action, 'orders.cancel.action');
  if (orders.cancel !== undefined && 'patch' in orders.cancel)
    check.writes(type, on, orders.cancel.patch, 'orders.cancel.patch');
}

function checkRead(
  model: ServiceModel,
  section: ReadSection,
  setting: string,
  capability: CapabilityName,
  missing: Missing[],
): void {
  const check = new TypeCheck(model, missing, capability);
  const type = check.entitySet(section.entity_set, `${setting}.entity_set`);
  if (type === undefined) return;
  check.filter(type, section.entity_set, section.filter, `${setting}.filter`);
  check.paths(type, section.entity_set, section.fields, `${setting}.fields`);
  for (const [index, name] of (section.select ?? []).entries())
    check.property(type, section.entity_set, name, `${setting}.select.${index}`);
}

function checkDocuments(
  model: ServiceModel,
  documents: NonNullable<OdataEntities['documents']>,
  missing: Missing[],
): void {
  documents.sources.forEach((source, index) => {
    const at = `documents.sources.${index}`;
    const check = new TypeCheck(model, missing, 'documentSource');
    const type = check.entitySet(source.entity_set, `${at}.entity_set`);
    if (type === undefined) return;
    const on = source.entity_set;
    source.key.forEach((key, keyIndex) => check.property(type, on, key, `${at}.key.${keyIndex}`));
    check.filter(type, on, source.filter, `${at}.filter`);
    check.paths(type, on, source.fields, `${at}.fields`);
    check.writes(type, on, source.mark_sent, `${at}.mark_sent`);
    if (source.own_mark !== undefined) check.property(type, on, source.own_mark, `${at}.own_mark`);
    if (source.updated !== undefined) {
      check.property(type, on, source.updated.date, `${at}.updated.date`);
      check.property(type, on, source.updated.time, `${at}.updated.time`);
    }
    const lines = check.child(type, on, source.lines_property, `${at}.lines_property`);
    if (lines !== undefined)
      check.paths(lines, source.lines_property, source.line_fields, `${at}.line_fields`);
  });
}

/** Every configured name the service does not have, in the order of the config. */
export function missingNames(model: ServiceModel, entities: OdataEntities): Missing[] {
  const missing: Missing[] = [];
  if (entities.orders !== undefined) checkOrders(model, entities.orders, missing);
  if (entities.documents !== undefined) checkDocuments(model, entities.documents, missing);
  const { catalog, customers } = entities;
  if (catalog !== undefined) {
    checkRead(model, catalog.products, 'catalog.products', 'catalogSource', missing);
    if (catalog.prices !== undefined)
      checkRead(model, catalog.prices, 'catalog.prices', 'catalogSource', missing);
    if (catalog.availability !== undefined)
      checkRead(model, catalog.availability, 'catalog.availability', 'catalogSource', missing);
  }
  if (customers !== undefined) checkRead(model, customers, 'customers', 'customerDirectory', missing);
  if (entities.company_currencies !== undefined) {
    const { entity_set: set, code } = entities.company_currencies;
    const check = new TypeCheck(model, missing, currencyCapability(entities));
    const type = check.entitySet(set, 'company_currencies.entity_set');
    if (type !== undefined) check.property(type, set, code, 'company_currencies.code');
  }
  return missing;
}

/** A user-defined field (SAP `U_` names) is added in the ERP, not mistyped in the config: the fix differs. */
function isUserField(name: string): boolean {
  return name.startsWith('U_') || name.startsWith('ZSSY_');
}

/** What doctor and the pre-flight say about one missing name: the setting, where it came from, the fix. */
export function describeMissing(missing: Missing, origins: Origins, configKey: string): PreflightProblem {
  const meant = closestMatch(missing.name, missing.candidates);
  const origin = originOf(origins, missing.setting) ?? `${configKey}.entities.${missing.setting}`;
  const userField = missing.kind === 'property' && isUserField(missing.name);
  const what = userField ? 'user-defined field' : missing.kind;
  return {
    status: 'fail',
    capability: missing.capability,
    key: `entities.${missing.setting}`,
    detail:
      `${what} ${missing.name} is not on ${missing.on} in the service's $metadata` +
      `${meant === undefined ? '' : `; did you mean ${meant}?`} (set by ${origin})`,
    fix: userField
      ? `${addField(missing)}, or set ${configKey}.entities.${missing.setting} to the field it has`
      : `set ${configKey}.entities.${missing.setting} to a name the service has`,
  };
}

/**
 * How to add a missing user-defined field. A Priority column (ZSSY_) stays invisible to the REST API after it is
 * added until the form's metadata is rebuilt (_restapi/6.restModify.md "Refreshing Metadata", 22.0 on).
 */
function addField(missing: Missing): string {
  const add = `add the field ${missing.name} in the ERP (docs/supplier-setup.md says how)`;
  if (!missing.name.startsWith('ZSSY_')) return add;
  return `${add}; once added, POST ClearEntityMetadata with {"Entity": "${missing.on}"} to the service root so the API shows it, then run doctor again`;
}

/** The currencies table serves the orders written and the documents read; a problem in it stops the orders first. */
export function currencyCapability(entities: OdataEntities): CapabilityName {
  return entities.orders !== undefined ? 'orderSink' : 'documentSource';
}
