/**
 * Child-process entry of the load generator, so the server under test keeps a core to itself:
 * `node --import tsx bench/lib/load-child.ts '<LoadConfig JSON>'` prints one LoadResult JSON line.
 */
import { generateLoad, type LoadConfig } from './load-generator.js';

const raw = process.argv[2];
if (raw === undefined) {
  process.stderr.write('usage: load-child.ts <LoadConfig JSON>\n');
  process.exit(2);
}
const result = await generateLoad(JSON.parse(raw) as LoadConfig);
process.stdout.write(`${JSON.stringify(result)}\n`);
