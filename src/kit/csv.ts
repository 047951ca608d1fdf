/** RFC 4180 CSV: quoted fields may hold separators, quotes (doubled) and line breaks. Rows end in CRLF or LF. */
export function parseCsv(text: string, separator: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  while (i < text.length) {
    const ch = text.charAt(i);
    if (quoted) {
      if (ch === '"' && text.charAt(i + 1) === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (ch === '"') quoted = false;
      else field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === '') {
      quoted = true;
    } else if (ch === separator) {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      if (ch === '\r' && text.charAt(i + 1) === '\n') i++;
    } else {
      field += ch;
    }
    i++;
  }
  if (field !== '' || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows.filter((cells) => cells.length > 1 || cells[0] !== '');
}

export function formatCsv(rows: readonly (readonly (string | null)[])[], separator: string): string {
  const quote = (value: string | null) => {
    if (value === null) return '';
    return /["\r\n]/.test(value) || value.includes(separator) ? `"${value.replace(/"/g, '""')}"` : value;
  };
  return rows.map((row) => row.map(quote).join(separator)).join('\r\n') + '\r\n';
}

/** Rows as records keyed by the header row's names (trimmed, lower-cased). */
export function csvRecords(text: string, separator: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text, separator);
  if (header === undefined) return [];
  const names = header.map((name) => name.trim().toLowerCase());
  return rows.map((cells) => Object.fromEntries(names.map((name, index) => [name, cells[index] ?? ''])));
}
