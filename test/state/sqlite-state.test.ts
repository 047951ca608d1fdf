import { sqliteHarness } from './backends.js';
import { sharedStateSuite } from './shared-state-suite.js';

sharedStateSuite(sqliteHarness());
