import { XMLParser } from 'fast-xml-parser';

/** What doctor needs of a service's $metadata (CSDL XML, OData v4 and v3): entity sets, types, properties, actions. */
export interface ServiceModel {
  /** Entity set name -> its entity type's name (without namespace). */
  readonly entitySets: ReadonlyMap<string, string>;
  readonly types: ReadonlyMap<string, TypeModel>;
  readonly actions: ReadonlySet<string>;
}

export interface TypeModel {
  readonly properties: ReadonlySet<string>;
  /** Collection-valued structural or navigation properties -> the type of their items. */
  readonly children: ReadonlyMap<string, string>;
}

type Node = Record<string, unknown>;
const LISTS = new Set([
  'Schema',
  'EntityType',
  'ComplexType',
  'Property',
  'NavigationProperty',
  'EntitySet',
  'EntityContainer',
  'Action',
  'FunctionImport',
]);

const localName = (qualified: string) => qualified.slice(qualified.lastIndexOf('.') + 1);
const itemType = (type: string) => localName(/^Collection\((.*)\)$/.exec(type)?.[1] ?? type);
const list = (node: Node, key: string) => (Array.isArray(node[key]) ? (node[key] as Node[]) : []);

function typeModel(node: Node): TypeModel {
  const properties = new Set<string>();
  const children = new Map<string, string>();
  for (const property of [...list(node, 'Property'), ...list(node, 'NavigationProperty')]) {
    const name = String(property['Name']);
    properties.add(name);
    const type = String(property['Type'] ?? '');
    if (type.startsWith('Collection(')) children.set(name, itemType(type));
    // CSDL v3 navigation properties name a relationship instead of a type: the ToRole is the item type's role.
    else if (property['ToRole'] !== undefined) children.set(name, String(property['ToRole']));
  }
  return { properties, children };
}

/** Reads a CSDL document; throws when it is not one. */
export function parseMetadata(xml: string): ServiceModel {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    removeNSPrefix: true,
    isArray: (name) => LISTS.has(name),
  });
  const root = parser.parse(xml) as Node;
  const dataServices = (root['Edmx'] as Node | undefined)?.['DataServices'] as Node | undefined;
  if (dataServices === undefined) throw new Error('the answer to $metadata is not an OData CSDL document');
  const entitySets = new Map<string, string>();
  const types = new Map<string, TypeModel>();
  const actions = new Set<string>();
  for (const schema of list(dataServices, 'Schema')) {
    for (const type of [...list(schema, 'EntityType'), ...list(schema, 'ComplexType')]) {
      types.set(String(type['Name']), typeModel(type));
    }
    for (const action of list(schema, 'Action')) actions.add(String(action['Name']));
    for (const container of list(schema, 'EntityContainer')) {
      for (const set of list(container, 'EntitySet'))
        entitySets.set(String(set['Name']), localName(String(set['EntityType'])));
      for (const action of list(container, 'FunctionImport')) actions.add(String(action['Name']));
    }
  }
  return { entitySets, types, actions };
}
