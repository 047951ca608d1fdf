/**
 * The shape of an emulated ERP: entity types with their properties, keys and line collections, the entity sets
 * over them, and the CSDL ($metadata) that describes them. Each vendor model (sap-b1.ts, priority.ts) is written
 * from that vendor's published reference (connectors/odata/README.md cites it).
 */

export type EdmType =
  | 'Edm.String'
  | 'Edm.Int32'
  | 'Edm.Int64'
  | 'Edm.Decimal'
  | 'Edm.Double'
  | 'Edm.Date'
  | 'Edm.DateTimeOffset'
  | 'Edm.TimeOfDay';

export interface PropertyModel {
  readonly name: string;
  readonly type: EdmType;
  /** A create without it is refused, as the ERP refuses it. */
  readonly required?: boolean;
  /** Set by the ERP on create (numbering, totals, defaults); ignored when sent. */
  readonly assigned?: boolean;
  /** The most characters the ERP keeps; a longer text is refused, as the ERP refuses it. */
  readonly maxLength?: number;
}

export interface CollectionModel {
  readonly name: string;
  readonly itemType: string;
  /** navigation: a related entity collection (Priority subforms, $expand); complex: inline (SAP DocumentLines). */
  readonly kind: 'navigation' | 'complex';
  /** Required with at least one item on create. */
  readonly required?: boolean;
}

export interface TypeModel {
  readonly name: string;
  readonly key: readonly string[];
  readonly properties: readonly PropertyModel[];
  readonly collections: readonly CollectionModel[];
  readonly complex?: boolean;
}

export interface EntitySetModel {
  readonly name: string;
  readonly type: string;
  /** References checked on create: property -> entity set whose key it must name. */
  readonly references?: Readonly<Record<string, string>>;
  /** Line properties the ERP fills from master data when not sent (an item's description from the item). */
  readonly lineDefaults?: ReadonlyArray<{
    lines: string;
    property: string;
    from: string;
    key: string;
    source: string;
  }>;
}

export interface ErpModel {
  readonly namespace: string;
  readonly types: readonly TypeModel[];
  readonly entitySets: readonly EntitySetModel[];
  /**
   * Documents created from another (a line naming its base document by type code and entry) copy the base
   * document's user fields (`U_` properties) the new document does not set.
   */
  readonly baseDocuments?: {
    readonly lines: string;
    readonly typeProperty: string;
    readonly entryProperty: string;
    readonly entryKey: string;
    /** Object type code -> entity set. */
    readonly sets: Readonly<Record<number, string>>;
  };
  /** Appended to every Edm.Date value an answer carries (SAP v2: `2026-11-20T00:00:00Z`, see sap-b1.ts). */
  readonly dateSuffix?: string;
  /** Bound actions, by name, on the types that have them. */
  readonly actions: Readonly<Record<string, readonly string[]>>;
}

const escapeXml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

function typeXml(model: ErpModel, type: TypeModel): string {
  const tag = type.complex === true ? 'ComplexType' : 'EntityType';
  const key =
    type.complex === true
      ? ''
      : `<Key>${type.key.map((name) => `<PropertyRef Name="${escapeXml(name)}"/>`).join('')}</Key>`;
  const properties = type.properties.map(
    (property) =>
      `<Property Name="${escapeXml(property.name)}" Type="${property.type}"${property.required === true ? ' Nullable="false"' : ''}${property.maxLength === undefined ? '' : ` MaxLength="${property.maxLength}"`}/>`,
  );
  const collections = type.collections.map((collection) =>
    collection.kind === 'complex'
      ? `<Property Name="${collection.name}" Type="Collection(${model.namespace}.${collection.itemType})"/>`
      : `<NavigationProperty Name="${collection.name}" Type="Collection(${model.namespace}.${collection.itemType})"/>`,
  );
  return `<${tag} Name="${type.name}">${key}${properties.join('')}${collections.join('')}</${tag}>`;
}

/** The model's CSDL document (OData v4). */
export function metadataXml(model: ErpModel): string {
  const actions = Object.entries(model.actions).flatMap(([name, types]) =>
    types.map(
      (type) =>
        `<Action Name="${name}" IsBound="true"><Parameter Name="bindingParameter" Type="${model.namespace}.${type}"/></Action>`,
    ),
  );
  const sets = model.entitySets.map(
    (set) => `<EntitySet Name="${set.name}" EntityType="${model.namespace}.${set.type}"/>`,
  );
  return (
    '<?xml version="1.0" encoding="utf-8"?>' +
    '<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0"><edmx:DataServices>' +
    `<Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="${model.namespace}">` +
    model.types.map((type) => typeXml(model, type)).join('') +
    actions.join('') +
    `<EntityContainer Name="Service">${sets.join('')}</EntityContainer></Schema></edmx:DataServices></edmx:Edmx>`
  );
}

export function typeOf(model: ErpModel, name: string): TypeModel {
  const type = model.types.find((candidate) => candidate.name === name);
  if (type === undefined) throw new Error(`model has no type ${name}`);
  return type;
}

/** A model without some properties (a user-defined field not added in this ERP, for tests of doctor). */
export function withoutProperties(model: ErpModel, names: readonly string[]): ErpModel {
  return {
    ...model,
    types: model.types.map((type) => ({
      ...type,
      properties: type.properties.filter((property) => !names.includes(property.name)),
    })),
  };
}
