/** How a flow option names one of the config's mapping tables (the keys of `mappings:`). */
import * as z from 'zod';

export const mappingTableName = z
  .string()
  .regex(/^[a-z][a-z0-9_]*$/, 'a mapping table name: lowercase letters, digits and underscores');
