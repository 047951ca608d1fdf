/**
 * docs/extending.md stays true by construction: its TypeScript blocks are the worked example's files (as they are,
 * up to layout and elided parts), its table of allowed imports is the one eslint.config.js renders, and the paths
 * it names exist. (Its YAML block is the config test/docs/extending.test.ts runs.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  BEGIN_MARKER,
  END_MARKER,
  EXTENDING_DOC,
  LAYER_TABLE_COMMAND,
  LAYERS,
  renderLayerTable,
  withLayerTable,
} from '../../eslint/layer-table.js';
import { appearsIn } from './code-blocks.js';
import { fencedBlocks, inlineCode } from './markdown.js';

const ROOT = resolve(import.meta.dirname, '../..');
const doc = readFileSync(EXTENDING_DOC, 'utf8');
const EXAMPLES = [
  'test/docs/extending/customer-file-connector.ts',
  'test/docs/extending/unlinked-customers-flow.ts',
];
const examples = EXAMPLES.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

const tsBlocks = fencedBlocks(doc).filter((block) => block.lang === 'ts');

/** "the ts block at line 42 (export const x = ...)": how a failure names a block. */
function nameOf(block: { line: number; code: string }): string {
  return `the ts block at line ${block.line} of docs/extending.md (${block.code.split('\n')[0]?.trim() ?? ''})`;
}

describe('the TypeScript blocks of docs/extending.md', () => {
  it('are the worked example: its schema, connector and flow', () => {
    expect(tsBlocks.length).toBeGreaterThanOrEqual(3);
    for (const name of [
      'customerFileConfigSchema',
      'customerFileConnectorDefinition',
      'unlinkedCustomersFlow',
    ]) {
      expect(
        tsBlocks.some((block) => block.code.includes(`export const ${name} =`)),
        name,
      ).toBe(true);
    }
  });

  it.each(tsBlocks.map((block) => [nameOf(block), block] as const))(
    '%s is in an example file',
    (name, block) => {
      const found = examples.filter((example) => appearsIn(block.code, example.text));
      expect(
        found.length,
        `${name} appears in none of ${EXAMPLES.join(', ')}: make the block what the file says (layout aside; ` +
          '/* ... */ elides a part), or change the file and the block together',
      ).toBeGreaterThan(0);
    },
  );

  it('tell a block that drifted from one laid out differently or with a body elided', () => {
    const flow = examples[1]?.text ?? '';
    const block = tsBlocks.find((candidate) => candidate.code.includes('export const unlinkedCustomersFlow'));
    expect(block).toBeDefined();
    const code = block?.code ?? '';
    expect(appearsIn(code, flow)).toBe(true);
    expect(appearsIn(code.replace(/\s+/g, '\n  '), flow)).toBe(true);
    expect(appearsIn(code.replace("side: 'supplier'", "side: 'buyer'"), flow)).toBe(false);
    expect(
      appearsIn(
        code.replace("'supplier.buyers:read'", "'supplier.buyers:read', 'supplier.orders:read'"),
        flow,
      ),
    ).toBe(false);
    expect(appearsIn("defineFlow({ flow: 'unlinked-customers', /* ... */ });", flow)).toBe(true);
    expect(appearsIn("defineFlow({ flow: 'unlinked-customers', /* ... */ side: 'buyer' });", flow)).toBe(
      false,
    );
  });
});

describe('the table of allowed imports in docs/extending.md', () => {
  it('is the one the layer table of eslint.config.js renders', () => {
    const region = (text: string) => text.slice(text.indexOf(BEGIN_MARKER), text.indexOf(END_MARKER));
    expect(
      region(doc),
      `docs/extending.md: the table of allowed imports differs from eslint.config.js; run \`${LAYER_TABLE_COMMAND}\``,
    ).toBe(region(withLayerTable(doc)));
  });

  it('shows each place and what it may import, and changes when the table does', () => {
    const table = renderLayerTable();
    expect(table).toMatch(/^\| `src\/state` +\| `src\/shared` \|$/m);
    expect(table).toMatch(/^\| `src\/shared` +\| nothing from elsewhere in the project \|$/m);
    expect(table).toMatch(/^\| a flow, `src\/flows\/<flow>` +\| .*`src\/plugin`, `src\/flows\/shared` \|$/m);
    expect(table).toMatch(/^- `src\/api-access\/endpoint\.ts`, also `src\/sandbox`$/m);
    const changed = { ...LAYERS, src: { ...LAYERS.src, state: ['shared', 'engine'] } };
    expect(renderLayerTable(changed)).toMatch(/^\| `src\/state` +\| `src\/shared`, `src\/engine` \|$/m);
    expect(withLayerTable(doc, changed)).not.toBe(doc);
  });

  it('is written between its markers only, and refused without them', () => {
    const rewritten = withLayerTable(doc);
    const outside = (text: string) =>
      text.slice(0, text.indexOf(BEGIN_MARKER)) + text.slice(text.indexOf(END_MARKER));
    expect(outside(rewritten)).toBe(outside(doc));
    expect(() => withLayerTable(doc.replace(END_MARKER, ''))).toThrow(/layer-table region is missing/);
  });
});

describe('the paths docs/extending.md names', () => {
  it('exist', () => {
    const paths = inlineCode(doc).filter(
      (code) =>
        /^(src|connectors|test|docs|eslint|deploy|config)\/[\w./-]*$/.test(code) && !code.includes('<'),
    );
    expect(paths.length).toBeGreaterThan(10);
    for (const path of paths)
      expect(existsSync(join(ROOT, path)), `docs/extending.md names ${path}`).toBe(true);
  });
});
