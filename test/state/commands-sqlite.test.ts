import { sqliteHarness } from './backends.js';
import { commandQueueSuite } from './commands-suite.js';

commandQueueSuite(sqliteHarness());
