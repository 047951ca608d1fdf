import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { sqlConnectorDefinition } from '../../connectors/sql/index.js';
import type * as z from 'zod';
import { defineFlow, PluginRegistry, type FlowDefinition } from '../../src/plugin/index.js';

/** A registry holding the sql connector type, for tests of the core loader. */
export function registryWithConnectors(): PluginRegistry {
  return new PluginRegistry([sqlConnectorDefinition]);
}

/** A flow that only contributes its options schema (and what `extra` sets); its jobs are never built. */
export function optionsOnlyFlow<S extends z.ZodType>(
  flow: string,
  options: S,
  extra: Partial<Pick<FlowDefinition, 'side' | 'scopes' | 'requires'>> = {},
): FlowDefinition<S> {
  return defineFlow({
    flow,
    description: `the ${flow} flow`,
    side: 'supplier',
    scopes: [],
    requires: [],
    triggerEvents: [],
    options,
    create: () => {
      throw new Error(`the ${flow} flow builds no jobs in this test`);
    },
    ...extra,
  });
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
