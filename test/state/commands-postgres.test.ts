import { postgresHarness } from './backends.js';
import { commandQueueSuite } from './commands-suite.js';

commandQueueSuite(await postgresHarness());
