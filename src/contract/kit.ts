/**
 * One definition, two modes. Every resource is defined once as a function of a SchemaKit; building it with the
 * strict kit gives the sandbox's validators (unknown fields and enum values rejected), with the lenient kit the
 * client's parsers (unknown fields stripped, unknown enum values kept as strings).
 */
import * as z from 'zod';

export type Mode = 'strict' | 'lenient';

/** A contract enum: its known values, or any other string the service may add later. */
export type OpenEnum<T extends string> = T | (string & {});

export interface SchemaKit {
  readonly mode: Mode;
  /** An object of the contract: strict rejects unknown keys, lenient strips them. */
  object<S extends z.ZodRawShape>(shape: S): z.ZodObject<S, z.core.$strip>;
  /** A contract enum: strict accepts only `values`, lenient any string. */
  enumOf<const T extends readonly [string, ...string[]]>(values: T): z.ZodType<OpenEnum<T[number]>, string>;
}

export const strictKit: SchemaKit = {
  mode: 'strict',
  object: (shape) => z.strictObject(shape) as unknown as z.ZodObject<typeof shape, z.core.$strip>,
  enumOf: (values) => z.enum(values),
};

export const lenientKit: SchemaKit = {
  mode: 'lenient',
  object: (shape) => z.object(shape),
  enumOf: <const T extends readonly [string, ...string[]]>(_values: T) =>
    z.string() as z.ZodType<OpenEnum<T[number]>, string>,
};

/** Params for a refinement's issue, naming the contract's validation item code (see validation-items.ts). */
export function itemCodeParams(code: string): { params: { itemCode: string } } {
  return { params: { itemCode: code } };
}
