import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bindValues, compileNamedParams } from '../../src/kit/sql/named-params.js';

describe('compileNamedParams', () => {
  it('numbers distinct names for PostgreSQL and reuses the number for a repeated name', () => {
    const compiled = compileNamedParams('SELECT * FROM t WHERE a = :a OR b = @b OR c = :a', 'dollar');
    expect(compiled.text).toBe('SELECT * FROM t WHERE a = $1 OR b = $2 OR c = $1');
    expect(compiled.names).toEqual(['a', 'b']);
  });

  it('keeps @name for SQL Server and rewrites :name to it', () => {
    expect(compileNamedParams('UPDATE t SET x = :x WHERE id = @id', 'at').text).toBe(
      'UPDATE t SET x = @x WHERE id = @id',
    );
  });

  it('emits one ? per occurrence for SQLite, in order', () => {
    const compiled = compileNamedParams('VALUES (:a, :b, :a)', 'question');
    expect(compiled.text).toBe('VALUES (?, ?, ?)');
    expect(compiled.positions).toEqual(['a', 'b', 'a']);
  });

  it('leaves literals, quoted identifiers, comments, casts and system variables alone', () => {
    const sql = `SELECT ':a', "col:b", [x@y], x::text, @@ROWCOUNT, 'it''s :c' -- :d
      /* :e */ FROM t WHERE k = :k`;
    const compiled = compileNamedParams(sql, 'dollar');
    expect(compiled.names).toEqual(['k']);
    expect(compiled.text).toBe(sql.replace(':k', '$1'));
  });

  it('never finds a parameter inside a string literal (property)', () => {
    fc.assert(
      fc.property(fc.string(), (content) => {
        const literal = `'${content.replace(/'/g, "''")}'`;
        const compiled = compileNamedParams(`SELECT ${literal} AS v WHERE x = :x`, 'dollar');
        expect(compiled.names).toEqual(['x']);
        expect(compiled.text).toBe(`SELECT ${literal} AS v WHERE x = $1`);
      }),
    );
  });
});

describe('bindValues', () => {
  it('binds nulls and names a missing parameter without printing values', () => {
    expect(bindValues(['a', 'b'], { a: null, b: 'x', secret: 'hunter2' })).toEqual([null, 'x']);
    const attempt = () => bindValues(['a', 'missing'], { a: 'hunter2' });
    expect(attempt).toThrow(/:missing has no value \(known parameters: a\)/);
    expect(attempt).not.toThrow(/hunter2/);
  });
});
