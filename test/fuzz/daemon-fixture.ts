/** A running daemon (in this process, real HTTP) against a sandbox, with no jobs: the webhook endpoint under test. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runDaemon, type Daemon } from '../../src/daemon/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';

export const FUZZ_SECRET = 'whsec_fuzz_0123456789abcdef0123456789abcdef';
export const MAX_BODY_BYTES = 64 * 1024;

export interface DaemonFixture {
  daemon: Daemon;
  sandbox: RunningSandbox;
  close(): Promise<void>;
}

export async function startFuzzDaemon(): Promise<DaemonFixture> {
  const dir = await mkdtemp(path.join(tmpdir(), 'supply-sync-fuzz-'));
  const sandbox = await startSandbox({});
  try {
    const file = path.join(dir, 'supply-sync.yaml');
    await writeFile(
      file,
      [
        'api:',
        `  base_url: ${sandbox.baseUrl}`,
        `  api_key: ${sandbox.keys.supplier}`,
        'state:',
        '  path: state/fuzz.db',
        'server:',
        '  port: 0',
        `  webhook_secrets: ['${FUZZ_SECRET}']`,
        `  max_body_bytes: ${MAX_BODY_BYTES}`,
        'log:',
        '  level: silent',
      ].join('\n'),
    );
    const registry = buildPluginRegistry();
    const daemon = await runDaemon({
      loaded: loadConfig(file, { registry }),
      registry,
    });
    return {
      daemon,
      sandbox,
      close: async () => {
        await daemon.stop(5_000);
        await sandbox.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
