/**
 * The `boundaries/allowed-imports` rule: every relative import (static, `export ... from`, or dynamic `import()`)
 * is resolved to a file, and the place it leaves and the place it reaches are looked up in the layer table of
 * eslint.config.js. Resolving paths, rather than matching "../" counts in specifiers, means a file's depth below
 * its folder makes no difference. Package imports (`zod`, `node:fs`) are not this rule's business.
 *
 * A place is a src folder (`state`), a flow (`flows/orders`, `flows/shared`), a connector (`connectors/sql`, its
 * subfolders included) or a file named in the table's `plugins` entry (the documented worked example).
 */
import path from 'node:path';

/** Where a repository path sits: { kind: 'src' | 'flow' | 'connector' | 'other', name }. */
function placeOf(relative, plugins) {
  const parts = relative.split('/');
  if (plugins[relative] !== undefined) return { kind: plugins[relative], name: relative };
  if (parts[0] === 'src' && parts.length > 2) {
    if (parts[1] === 'flows') return { kind: 'flow', name: `flows/${parts[2]}` };
    return { kind: 'src', name: parts[1] };
  }
  if (parts[0] === 'src') return { kind: 'src-file', name: relative };
  if (parts[0] === 'connectors' && parts.length > 2)
    return { kind: 'connector', name: `connectors/${parts[1]}` };
  return { kind: 'other', name: relative };
}

/** What `from` may import, as a list of place names ('connectors/*' and 'flows/*' match every one). */
function allowedFor(from, table) {
  if (from.kind === 'src') return table.src[from.name];
  if (from.kind === 'flow')
    return from.name === 'flows/shared' ? table.flow : [...table.flow, 'flows/shared'];
  if (from.kind === 'connector') return table.connector;
  return undefined;
}

function allows(list, to) {
  if (to.kind === 'src') return list.includes(to.name);
  if (to.kind === 'flow') return list.includes(to.name) || list.includes('flows/*');
  if (to.kind === 'connector') return list.includes('connectors/*');
  return false;
}

function describe(place) {
  if (place.kind === 'src') return `src/${place.name}`;
  if (place.kind === 'flow' && place.name.startsWith('flows/')) return `src/${place.name}`;
  return place.name;
}

/**
 * options: { root, table: { src: { folder: [places] }, flow: [places], connector: [places], plugins: { file: kind },
 * dynamic: { file: [places] } } }.
 */
export const allowedImports = {
  meta: {
    type: 'problem',
    docs: { description: 'imports follow the layer table of eslint.config.js' },
    schema: [{ type: 'object', additionalProperties: true }],
  },
  create(context) {
    const { root, table } = context.options[0];
    const file = path.relative(root, context.filename).split(path.sep).join('/');
    const from = placeOf(file, table.plugins);
    if (from.kind === 'other') return {};
    if (from.kind === 'src-file' || (from.kind === 'src' && table.src[from.name] === undefined)) {
      return {
        Program(node) {
          context.report({
            node,
            message: `${describe(from)} is not in the layer table of eslint.config.js: place its folder there, with what it may import`,
          });
        },
      };
    }
    const allowed = allowedFor(from, table);
    const dynamicAllowed = table.dynamic[file] ?? [];

    function check(node, source, dynamic) {
      if (source === null || source === undefined) return;
      if (source.type !== 'Literal' || typeof source.value !== 'string') {
        context.report({
          node,
          message: 'import() takes a string literal here, so the import boundaries can be checked',
        });
        return;
      }
      const specifier = source.value;
      if (dynamic && !table.dynamic[file]) {
        context.report({
          node,
          message: `import() of ${specifier}: dynamic imports are allowed only in the files listed under "dynamic" in eslint.config.js`,
        });
        return;
      }
      if (!specifier.startsWith('.')) return;
      const target = path
        .relative(root, path.resolve(path.dirname(context.filename), specifier))
        .split(path.sep)
        .join('/');
      const to = placeOf(target, table.plugins);
      if (to.name === from.name) return;
      if (allows(allowed, to)) return;
      if (dynamic && allows(dynamicAllowed, to)) return;
      const may =
        allowed.length === 0
          ? 'nothing from elsewhere in the project'
          : allowed.map((p) => (p.startsWith('connectors/') ? p : `src/${p}`)).join(', ');
      context.report({
        node,
        message: `${describe(from)} may not import ${describe(to)} (${specifier}); it may import ${may} (eslint.config.js, layer table)`,
      });
    }

    return {
      ImportDeclaration: (node) => check(node, node.source, false),
      ExportNamedDeclaration: (node) => check(node, node.source, false),
      ExportAllDeclaration: (node) => check(node, node.source, false),
      ImportExpression: (node) => check(node, node.source, true),
      // `source` in current typescript-eslint; reading the deprecated `argument` prints a warning.
      TSImportType: (node) => check(node, node.source ?? node.argument?.literal ?? node.argument, false),
    };
  },
};

export default { rules: { 'allowed-imports': allowedImports } };
