export { createLogger } from './logger.js';
export type { Logger, LoggerOptions } from './logger.js';
export { buildRedactPaths } from './redaction.js';
export { scrubSecrets, isSecretKeyName, REDACTED } from './scrub.js';
export { deepScrub } from './deep-scrub.js';
export { prettyLine, prettyStream, wantsPretty } from './pretty.js';
