/**
 * The published reader must be able to fail: files built by hand that the real importer would misread are refused,
 * each with the reason. Among them, the layout the writer used before (details at PRM line 7).
 */
import { describe, expect, it } from 'vitest';
import iconv from 'iconv-lite';
import { parsePublishedDoc, parsePublishedPrm } from './published-reader.js';

const crlf = (lines: readonly string[]) => Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1');
const unused = (from: number, to: number) => Array.from({ length: to - from + 1 }, () => '0 0');

/** A record of details (1-10), debit account (11-15), credit account (16-20), debit and credit amounts (21-44). */
const GOOD_PRM = crlf([
  '44',
  ...unused(2, 8),
  '1 10', // 9 details
  '11 15', // 10 debit account 1
  '0 0',
  '16 20', // 12 credit account 1
  '0 0',
  '21 32', // 14 debit amount 1
  '0 0',
  '33 44', // 16 credit amount 1
  ...unused(17, 35),
]);

function record(details: string, debit: string, credit: string, amounts = ['      100.00', '      100.00']) {
  return `${details.padEnd(10)}${debit.padEnd(5)}${credit.padEnd(5)}${amounts.join('')}`;
}

function doc(records: readonly string[], ending = '\r\n'): Buffer {
  return iconv.encode(records.map((r) => `${r}${ending}`).join(''), 'windows-1255');
}

describe('the reader written from the published PRM table', () => {
  it('reads a hand-built file: fields by their published line, Hebrew from windows-1255, amounts in agorot', () => {
    const layout = parsePublishedPrm(GOOD_PRM);
    const [movement] = parsePublishedDoc(doc([record('קניות', '600', 'ספק')]), layout);
    expect(movement).toMatchObject({
      details: 'קניות',
      debits: [{ account: '600', agorot: 10000n }],
      credits: [{ account: 'ספק', agorot: 10000n }],
    });
  });

  it("refuses the writer's former layout: 18 lines, details at line 7", () => {
    const former = ['195', '1 3', '4 12', '13 21', '22 29', '30 37', '38 87', '88 102', '103 117'];
    const formerTail = [
      '118 132',
      '133 147',
      '148 159',
      '160 171',
      '172 183',
      '184 195',
      '0 0',
      '0 0',
      '0 0',
    ];
    expect(() => parsePublishedPrm(crlf([...former, ...formerTail]))).toThrow(
      'PRM has 18 lines; the importer reads exactly 35',
    );
    const padded = crlf([...former, ...formerTail, ...unused(19, 35)]);
    expect(() => parsePublishedPrm(padded)).toThrow(
      'PRM line 7 is costing code (at most 8 characters) but spans 38-87',
    );
  });

  it('refuses PRM files the importer cannot read', () => {
    const lines = GOOD_PRM.toString('latin1').split('\r\n').slice(0, -1);
    expect(() => parsePublishedPrm(Buffer.from(lines.join('\n'), 'latin1'))).toThrow(/LF without CR/);
    expect(() => parsePublishedPrm(Buffer.from(lines.join('\r\n'), 'latin1'))).toThrow(
      /does not end with CRLF/,
    );
    const overlapping = [...lines];
    overlapping[9] = '5 15';
    expect(() => parsePublishedPrm(crlf(overlapping))).toThrow(/overlap/);
    const outside = [...lines];
    outside[0] = '40';
    expect(() => parsePublishedPrm(crlf(outside))).toThrow(/outside a record of 40/);
  });

  it('refuses records the importer would misread or that do not balance', () => {
    const layout = parsePublishedPrm(GOOD_PRM);
    const good = record('x', '600', '400');
    expect(() => parsePublishedDoc(doc([good], '\n'), layout)).toThrow(/LF without CR/);
    expect(() => parsePublishedDoc(doc([`${good} `]), layout)).toThrow(/45 bytes/);
    expect(() =>
      parsePublishedDoc(doc([record('x', '600', '400', ['100.00      ', '      100.00'])]), layout),
    ).toThrow(/line 14.*not a 9.2 amount aligned right/);
    expect(() =>
      parsePublishedDoc(doc([record('x', '600', '400', ['      100.00', '      100.01'])]), layout),
    ).toThrow(/does not balance/);
    expect(() => parsePublishedDoc(doc([record(' x', '600', '400')]), layout)).toThrow(/not aligned left/);
    expect(() => parsePublishedDoc(doc([record('x', '', '400')]), layout)).toThrow(/disagree/);
    const undefinedByte = Buffer.from(doc([good]));
    undefinedByte[0] = 0xff; // not defined in windows-1255
    expect(() => parsePublishedDoc(undefinedByte, layout)).toThrow(/does not define/);
  });

  it('refuses a byte that no PRM line places', () => {
    const gap = [...GOOD_PRM.toString('latin1').split('\r\n').slice(0, -1)];
    gap[0] = '45';
    const layout = parsePublishedPrm(crlf(gap));
    expect(parsePublishedDoc(doc([`${record('x', '600', '400')} `]), layout)).toHaveLength(1);
    expect(() => parsePublishedDoc(doc([`${record('x', '600', '400')}7`]), layout)).toThrow(
      'DOC record 1: byte 45 lies in no PRM field and is not blank',
    );
  });

  it('checks digits and dates at their published lines', () => {
    // 3 reference 1 (1-9), 5 reference date (10-17), 10/12 accounts (18-19, 20-21), 14/16 amounts (22-33, 34-45)
    const layout = parsePublishedPrm(
      crlf([
        '45',
        '0 0',
        '1 9',
        '0 0',
        '10 17',
        ...unused(6, 9),
        '18 19',
        '0 0',
        '20 21',
        '0 0',
        '22 33',
        '0 0',
        '34 45',
        ...unused(17, 35),
      ]),
    );
    const tail = '6040      100.00      100.00';
    const [movement] = parsePublishedDoc(doc([`     100129022028${tail}`]), layout);
    expect(movement).toMatchObject({ reference1: '1001', referenceDate: '2028-02-29' });
    expect(() => parsePublishedDoc(doc([`1001     07032026${tail}`]), layout)).toThrow(
      /digits aligned right/,
    );
    expect(() => parsePublishedDoc(doc([`     100129022026${tail}`]), layout)).toThrow(/not a calendar date/);
    expect(() => parsePublishedDoc(doc([`     100107-03-26${tail}`]), layout)).toThrow(/not a date/);
  });
});
