export { hashavshevetConnectorDefinition, HASHAVSHEVET_TYPE } from './definition.js';
export { hashavshevetConfigSchema, type HashavshevetConfig } from './config.js';
export { HashavshevetWriter, type HashavshevetFiles } from './writer.js';
export { buildLayout, layoutFileText, type DateFormat, type RecordLayout } from './layout.js';
export { TEXT_DIRECTIONS, type TextDirection } from './text-direction.js';
