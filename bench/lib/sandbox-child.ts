/**
 * Child-process entry that runs a sandbox on its own core: prints one JSON line with its URLs and keys, then
 * serves until stdin closes (the parent exiting or calling close()).
 */
import { startSandbox, type SandboxOptions } from '../../src/sandbox/index.js';

const options = JSON.parse(process.argv[2] ?? '{}') as Pick<
  SandboxOptions,
  'rateLimitOverrides' | 'allowHttpWebhooks' | 'timeScale'
>;
const sandbox = await startSandbox(options);
process.stdout.write(
  `${JSON.stringify({ baseUrl: sandbox.baseUrl, controlUrl: sandbox.controlUrl, origin: sandbox.origin, keys: sandbox.keys })}\n`,
);
process.stdin.resume();
process.stdin.on('close', () => {
  void sandbox.close().finally(() => process.exit(0));
});
