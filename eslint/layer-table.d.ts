/** Types of eslint/layer-table.js, for the tests that use it. */

/** The layer table of eslint.config.js (see the comment above it there). */
export interface LayerTable {
  /** Per src folder, the places it may import. */
  readonly src: Readonly<Record<string, readonly string[]>>;
  /** What a flow may import, besides src/flows/shared. */
  readonly flow: readonly string[];
  /** What a connector may import. */
  readonly connector: readonly string[];
  /** Files outside connectors/ and src/flows held to the rules of a connector or a flow. */
  readonly plugins: Readonly<Record<string, 'connector' | 'flow'>>;
  /** The files allowed a dynamic import(), each with the places it reaches besides its own place's. */
  readonly dynamic: Readonly<Record<string, readonly string[]>>;
}

export const LAYERS: LayerTable;
export const LAYER_TABLE_COMMAND: string;
export const EXTENDING_DOC: string;
export const BEGIN_MARKER: string;
export const END_MARKER: string;
export function renderLayerTable(table?: LayerTable): string;
export function withLayerTable(doc: string, table?: LayerTable): string;
