/**
 * The demo's back office: drops a file of one or two expenses (with a scanned receipt for most) into a csv-expenses
 * folder, the way an exporting program should: written under a dot-name, then renamed into place.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { formatCsv } from '../../src/kit/csv.js';

const HEADER = [
  'reference',
  'vendor',
  'doc_type',
  'doc_number',
  'doc_date',
  'branch',
  'category',
  'amount_before_vat',
  'vat_amount',
  'description',
  'attachment',
];

/** Source codes of the demo back office (config/demo.yaml maps them to the sandbox's ids). */
const KINDS = [
  { vendor: 'ELEC', category: 'UTIL', docType: 'tax_invoice', description: 'Electricity' },
  { vendor: 'BRIK', category: 'CLEAN', docType: 'tax_invoice', description: 'Cleaning service' },
  { vendor: 'BRIK', category: 'PACK', docType: 'receipt', description: 'Disposables' },
  { vendor: 'BAKERY', category: 'DRY', docType: 'none', description: 'Bread for the staff meal' },
] as const;
const BRANCHES = ['TLV01', 'HRZ02', 'JLM03'];

const pick = <T>(items: readonly T[], random: () => number): T =>
  items[Math.floor(random() * items.length)] as T;

/** Drops one file; returns the references it holds. */
export async function dropDemoExpenses(
  dir: string,
  now: Date,
  random: () => number = Math.random,
): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const stamp = now.toISOString().replace(/\D/g, '').slice(0, 14);
  const day = now.toISOString().slice(0, 10);
  const rows: string[][] = [HEADER];
  const refs: string[] = [];
  for (let n = 1; n <= 1 + Math.floor(random() * 2); n += 1) {
    const ref = `BO-${stamp}-${n}`;
    const kind = pick(KINDS, random);
    let receipt = '';
    if (kind.docType !== 'none') {
      receipt = `${ref}.pdf`;
      await writeFile(path.join(dir, receipt), demoPdf(`${kind.description} ${ref}`));
    }
    const net = (20 + Math.floor(random() * 180000) / 100).toFixed(2);
    const vat = kind.docType === 'none' ? '' : ((Number(net) * 18) / 100).toFixed(2);
    const branch = pick(BRANCHES, random);
    rows.push([
      ref,
      kind.vendor,
      kind.docType,
      ref,
      day,
      branch,
      kind.category,
      net,
      vat,
      kind.description,
      receipt,
    ]);
    refs.push(ref);
  }
  const name = `expenses-${stamp}.csv`;
  await writeFile(path.join(dir, `.${name}`), formatCsv(rows, ','), 'utf8');
  await rename(path.join(dir, `.${name}`), path.join(dir, name));
  return refs;
}

/** A minimal one-page PDF naming the expense, so the demo uploads a real receipt file. */
function demoPdf(text: string): string {
  const stream = `BT /F1 12 Tf 72 720 Td (${text.replace(/[()\\]/g, '')}) Tj ET`;
  return [
    '%PDF-1.4',
    '1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj',
    '2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj',
    '3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >> endobj',
    `4 0 obj << /Length ${stream.length} >> stream\n${stream}\nendstream endobj`,
    'trailer << /Root 1 0 R >>',
    '%%EOF',
    '',
  ].join('\n');
}
