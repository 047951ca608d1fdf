/**
 * Child-process entry of the bare baseline server (bareBodyReader: read the body, answer 204), so it is loaded
 * from outside as the daemon is: prints one JSON line with its origin, then serves until stdin closes.
 */
import { bareBodyReader } from './bare-servers.js';

const bare = await bareBodyReader();
process.stdout.write(`${JSON.stringify({ origin: bare.origin })}\n`);
process.stdin.resume();
process.stdin.on('close', () => {
  void bare.close().finally(() => process.exit(0));
});
