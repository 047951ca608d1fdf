/**
 * The demo world both the sandbox and the bundled demo ERP are built from: the supplier, the buyer and its
 * branches, and the supplier's product families. Plain data that imports nothing, so that the sandbox and a
 * connector may both use it.
 */
export * from './catalog.js';
export * from './parties.js';
