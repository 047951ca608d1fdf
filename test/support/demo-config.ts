/** config/demo.yaml as shipped, with a few settings changed, in a folder of its own so its ../state paths land there. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { defaultDemoConfigPath } from '../../src/daemon/start/demo.js';

export interface DemoConfigChanges {
  readonly server?: Record<string, unknown>;
  readonly log?: Record<string, unknown>;
}

/** Writes `dir`/config/demo.yaml; the demo's state, ERP and folders then go under `dir`/state. */
export async function writeDemoConfig(dir: string, changes: DemoConfigChanges = {}): Promise<string> {
  const demo = parseYaml(await readFile(defaultDemoConfigPath(), 'utf8')) as Record<
    string,
    Record<string, unknown>
  >;
  demo['server'] = { ...demo['server'], ...changes.server };
  demo['log'] = { ...demo['log'], level: 'silent', ...changes.log };
  await mkdir(join(dir, 'config'), { recursive: true });
  const file = join(dir, 'config', 'demo.yaml');
  await writeFile(file, stringifyYaml(demo));
  return file;
}
