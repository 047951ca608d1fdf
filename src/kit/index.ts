/**
 * What connectors share: files written atomically, CSV reading and writing, typed readers of result rows. Code
 * here knows no connector, flow or API detail; connectors import it instead of each other.
 */
export * from './atomic-file.js';
export * from './csv.js';
export * from './row-reader.js';
