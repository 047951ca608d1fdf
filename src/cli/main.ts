#!/usr/bin/env node
/** Entry point of `supply-sync` (bin/supply-sync.js imports the compiled copy of this file). */
import { endQuietlyOnBrokenPipe } from './broken-pipe.js';
import { runCli } from './program.js';

endQuietlyOnBrokenPipe([process.stdout, process.stderr], (code) => process.exit(code));
// Long-running commands (sandbox) keep the event loop alive after this; the others end once their work is done.
process.exitCode = await runCli(process.argv.slice(2));
