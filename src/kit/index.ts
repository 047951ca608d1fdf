/**
 * What connectors share: files written atomically, CSV reading and writing, typed readers of result rows, the
 * folders of a file-based connector, a drop folder's files and moves, single-byte Hebrew text (and, in ./sql,
 * database drivers). Code here knows no connector, flow or API detail; connectors import it instead of each other.
 */
export * from './atomic-file.js';
export * from './csv.js';
export * from './drop-folder.js';
export * from './folder.js';
export * from './row-reader.js';
export * from './single-byte-hebrew.js';
