import { defaultParser } from '@odata/parser';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  bindTemplate,
  filterProperties,
  keyPredicate,
  placeholders,
} from '../../../connectors/odata/literals.js';
import { queryString } from '../../../connectors/odata/service.js';
import { ODataOracle } from './oracle.js';

/** The string value of the right-hand literal of `Prop eq <literal>`, as @odata/parser reads the filter. */
function parsedLiteral(filter: string): { type: unknown; text: string } {
  const expression = defaultParser.filter(filter) as unknown as {
    type: string;
    value: { right: { value: unknown; raw: string } };
  };
  expect(expression.type).toBe('EqualsExpression');
  const { raw, value } = expression.value.right;
  return { type: value, text: raw.startsWith("'") ? raw.slice(1, -1).replaceAll("''", "'") : raw };
}

describe('OData literals bound into configured filters', () => {
  it('quotes every text value so an OData parser we did not write reads back exactly that text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (value) => {
        const filter = bindTemplate(
          'U_ApiOrderId eq :api_order_id',
          { api_order_id: value },
          'orders.find_filter',
        );
        expect(parsedLiteral(filter)).toEqual({ type: 'Edm.String', text: value });
        // And through the URL: percent-encoded whole, decoded by the query grammar.
        const query = decodeURIComponent(queryString({ filter }).slice(1));
        expect(defaultParser.query(query).next).toBe(query.length);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps text that looks like a number, a date or a keyword a string', () => {
    for (const value of ['42', '2026-11-24', 'null', 'true', "x' or 1 eq 1 or 'a"]) {
      const filter = bindTemplate('U_ApiOrderId eq :id', { id: value }, 'test');
      expect(parsedLiteral(filter)).toEqual({ type: 'Edm.String', text: value });
    }
  });

  it('writes numbers and null as OData literals, and names a placeholder without a value', () => {
    expect(bindTemplate('DocEntry eq :n and X eq :m', { n: 17, m: null }, 'k')).toBe(
      'DocEntry eq 17 and X eq null',
    );
    expect(() => bindTemplate('A eq :missing', {}, 'orders.find_filter')).toThrow(
      'orders.find_filter: parameter :missing has no value',
    );
  });

  it('leaves a colon inside a quoted constant alone, and lists the properties a filter compares', () => {
    expect(placeholders("A eq ':not_a_param' and B eq :p")).toEqual(['p']);
    expect(filterProperties("CardType eq 'cCustomer' and U_X eq :id or Lines/ItemCode ne null")).toEqual([
      'CardType',
      'U_X',
      'Lines',
    ]);
  });

  it('writes key predicates a parser we did not write reads, single and composite', () => {
    for (const predicate of [
      keyPredicate(['DocEntry'], { DocEntry: 5 }),
      keyPredicate(['ORDNAME'], { ORDNAME: "SO'1" }),
      keyPredicate(['IVNUM', 'IVTYPE', 'DEBIT'], { IVNUM: 'IV1', IVTYPE: 'A', DEBIT: 'D' }),
    ]) {
      const uri = `/Set${predicate}`;
      expect(defaultParser.odataUri(uri).next).toBe(uri.length);
    }
  });
});

describe('the request oracle', () => {
  it('records a filter pasted together without quoting, which the emulator alone would not notice', () => {
    const oracle = new ODataOracle();
    oracle.inspect({
      method: 'GET',
      target: "Orders?$filter=U_ApiOrderId%20eq%20'o'brien'",
      body: '',
      inBatch: false,
    });
    oracle.inspect({ method: 'POST', target: 'Orders', body: '{"CardCode":"C1",}', inBatch: false });
    oracle.inspect({
      method: 'GET',
      target: "Orders?$filter=U_ApiOrderId%20eq%20'o''brien'",
      body: '',
      inBatch: false,
    });
    expect(oracle.failures).toHaveLength(2);
    expect(oracle.failures[0]).toContain('URL grammar refuses it');
    expect(oracle.failures[1]).toContain('JSON body is refused');
  });
});
