/**
 * The kit the OpenAPI document is built with. Responses must stay open to additions (part 9): objects do not
 * refuse unknown fields, and every enum is "one of the known values, or any other string", so a validator
 * reading the document accepts a value the service adds later while readers and generators still see the list.
 */
import * as z from 'zod';
import type { OpenEnum, SchemaKit } from '../kit.js';

/** Marks the open string branch of an enum, so readers know why it is there. */
export const OPEN_ENUM_NOTE = 'New values may be added (part 9): clients must accept any other string.';

export const documentKit: SchemaKit = {
  mode: 'lenient',
  object: (shape) => z.object(shape),
  enumOf: <const T extends readonly [string, ...string[]]>(values: T) =>
    z.union([z.enum(values), z.string().meta({ description: OPEN_ENUM_NOTE })]) as unknown as z.ZodType<
      OpenEnum<T[number]>,
      string
    >,
};
