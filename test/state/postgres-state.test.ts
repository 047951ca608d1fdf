import { postgresHarness } from './backends.js';
import { sharedStateSuite } from './shared-state-suite.js';

sharedStateSuite(await postgresHarness());
