/** Command-line options of bench/run.ts. */
import { parseArgs } from 'node:util';

export interface BenchArgs {
  only: string[] | null;
  quick: boolean;
  out: string | undefined;
  jsonOut: string | undefined;
  /** Lines about the run's conditions, copied into results.md. */
  notes: string[];
}

export class UsageError extends Error {}

export function parseBenchArgs(argv: readonly string[], known: readonly string[]): BenchArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        only: { type: 'string', multiple: true },
        quick: { type: 'boolean', default: false },
        out: { type: 'string' },
        'json-out': { type: 'string' },
        note: { type: 'string', multiple: true },
      },
    }));
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const only = values.only?.flatMap((value) => value.split(',')).filter((name) => name !== '') ?? null;
  const unknown = (only ?? []).filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    throw new UsageError(`unknown benchmark(s): ${unknown.join(', ')}; known: ${known.join(', ')}`);
  }
  return {
    only,
    quick: values.quick,
    out: values.out,
    jsonOut: values['json-out'],
    notes: values.note ?? [],
  };
}
