import { describe, expect, it } from 'vitest';
import { parseBenchArgs, UsageError } from '../../bench/lib/args.js';

const known = ['sandbox-serve', 'pull', 'latency'];

describe('parseBenchArgs', () => {
  it('runs everything in full mode by default', () => {
    expect(parseBenchArgs([], known)).toEqual({
      only: null,
      quick: false,
      out: undefined,
      jsonOut: undefined,
      notes: [],
    });
  });

  it('accepts --only repeated or comma-separated, --quick, output paths and notes', () => {
    const args = parseBenchArgs(
      [
        '--quick',
        '--only',
        'pull,latency',
        '--only',
        'sandbox-serve',
        '--out',
        'a.md',
        '--json-out',
        'a.json',
        '--note',
        'busy',
      ],
      known,
    );
    expect(args).toEqual({
      only: ['pull', 'latency', 'sandbox-serve'],
      quick: true,
      out: 'a.md',
      jsonOut: 'a.json',
      notes: ['busy'],
    });
  });

  it('names unknown benchmarks and lists the known ones', () => {
    expect(() => parseBenchArgs(['--only', 'pul'], known)).toThrow(
      new UsageError('unknown benchmark(s): pul; known: sandbox-serve, pull, latency'),
    );
  });

  it('rejects unknown options', () => {
    expect(() => parseBenchArgs(['--fast'], known)).toThrow(UsageError);
  });
});
