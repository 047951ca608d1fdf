/** The office file the office tests and bench/office.ts share: journal exports into each company's own Hashavshevet folder. */
export function journalOfficeYaml(baseUrl: string, extra: readonly string[] = []): string {
  return [
    'api:',
    `  base_url: ${baseUrl}`,
    'state:',
    '  path: state/office.db',
    ...extra,
    'connectors:',
    '  books:',
    '    type: hashavshevet',
    '    long_references: sequence',
    '    details_overflow: truncate',
    'jobs:',
    '  journal:',
    '    flow: journal-export',
    '    connector: books',
    "    schedule: '30 2 * * *'",
    '    options:',
    "      description_template: '{description}'",
    '',
  ].join('\n');
}
