import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { sqlConnectorDefinition } from '../../connectors/sql/index.js';
import { addConnectorDefinitions, SchemaRegistry } from '../../src/config/index.js';

/** A registry holding the sql connector type, for tests of the core loader. */
export function registryWithConnectors(): SchemaRegistry {
  const registry = new SchemaRegistry();
  addConnectorDefinitions(registry, [sqlConnectorDefinition]);
  return registry;
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Writes files into a fresh temp folder (removed after the test) and returns its path. */
export function tempFiles(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'supply-sync-config-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

export const MINIMAL = `api:\n  sandbox: embedded\n`;
