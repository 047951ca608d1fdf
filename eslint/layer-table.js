/**
 * The layer table of eslint.config.js as docs/extending.md shows it: a Markdown table of what each place may
 * import, and the files allowed a dynamic import(). `node eslint/layer-table.js` rewrites the region between the
 * markers below in docs/extending.md; `--check` only says whether it is current (exit 1 when not).
 * test/docs/extending-doc.test.ts fails when the document's region differs from what this renders.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { LAYERS } from '../eslint.config.js';

export { LAYERS };

export const LAYER_TABLE_COMMAND = 'node eslint/layer-table.js';
export const EXTENDING_DOC = path.join(import.meta.dirname, '..', 'docs', 'extending.md');
export const BEGIN_MARKER = `<!-- layer-table: generated from eslint.config.js by \`${LAYER_TABLE_COMMAND}\`; do not edit by hand -->`;
export const END_MARKER = '<!-- /layer-table -->';

function placeName(place) {
  if (place === 'flows/*') return 'every flow (`src/flows/*`)';
  if (place === 'connectors/*') return 'every connector (`connectors/*`)';
  return `\`src/${place}\``;
}

function mayImport(list) {
  return list.length === 0 ? 'nothing from elsewhere in the project' : list.map(placeName).join(', ');
}

/** The region's text (without its markers): the table of places, then the files allowed a dynamic import(). */
export function renderLayerTable(table = LAYERS) {
  const rows = [
    ...Object.entries(table.src).map(([folder, list]) => [`\`src/${folder}\``, mayImport(list)]),
    ['a flow, `src/flows/<flow>`', mayImport([...table.flow, 'flows/shared'])],
    ['`src/flows/shared`', mayImport(table.flow)],
    ['a connector, `connectors/<type>`', mayImport(table.connector)],
    ...Object.entries(table.plugins).map(([file, kind]) => [
      `\`${file}\``,
      `as ${kind === 'flow' ? 'a flow' : 'a connector'}`,
    ]),
  ];
  const width = Math.max(...rows.map(([place]) => place.length), 'place'.length);
  const line = (place, may) => `| ${place.padEnd(width)} | ${may} |`;
  const dynamic = Object.entries(table.dynamic).map(([file, list]) =>
    list.length === 0 ? `- \`${file}\`` : `- \`${file}\`, also ${list.map(placeName).join(', ')}`,
  );
  return [
    line('place', 'may import'),
    `| ${'-'.repeat(width)} | ---------- |`,
    ...rows.map(([place, may]) => line(place, may)),
    '',
    'A dynamic `import()` is allowed only in these files, and reaches what their place may import and what is named',
    'here:',
    '',
    ...dynamic,
  ].join('\n');
}

/** `doc` with its layer-table region rendered afresh from `table`; throws when the markers are missing. */
export function withLayerTable(doc, table = LAYERS) {
  const begin = doc.indexOf(BEGIN_MARKER);
  const end = doc.indexOf(END_MARKER);
  if (begin === -1 || end === -1 || end < begin) {
    throw new Error(
      `the layer-table region is missing: put ${BEGIN_MARKER} and ${END_MARKER} on lines of their own`,
    );
  }
  return `${doc.slice(0, begin + BEGIN_MARKER.length)}\n\n${renderLayerTable(table)}\n\n${doc.slice(end)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const doc = readFileSync(EXTENDING_DOC, 'utf8');
  const current = withLayerTable(doc);
  const relative = path.relative(process.cwd(), EXTENDING_DOC);
  if (process.argv.includes('--check')) {
    process.stdout.write(
      current === doc
        ? `${relative}: the layer table is current\n`
        : `${relative}: the layer table is out of date: run ${LAYER_TABLE_COMMAND}\n`,
    );
    process.exitCode = current === doc ? 0 : 1;
  } else if (current === doc) {
    process.stdout.write(`${relative}: the layer table is current\n`);
  } else {
    writeFileSync(EXTENDING_DOC, current);
    process.stdout.write(`${relative}: the layer table rewritten from eslint.config.js\n`);
  }
}
