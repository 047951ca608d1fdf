import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Writes `<dir>/<name>.yaml`: a supplier daemon against a started sandbox, on a free port, with one webhook secret
 * and `serverLines` added under `server:`. Returns the file's path.
 */
export function writeDaemonConfig(options: {
  dir: string;
  name: string;
  baseUrl: string;
  apiKey: string;
  webhookSecret: string;
  serverLines: readonly string[];
}): string {
  const file = join(options.dir, `${options.name}.yaml`);
  writeFileSync(
    file,
    [
      'api:',
      `  base_url: ${options.baseUrl}`,
      `  api_key: ${options.apiKey}`,
      'state:',
      `  path: ${options.name}.db`,
      'server:',
      '  port: 0',
      `  webhook_secrets: ['${options.webhookSecret}']`,
      ...options.serverLines,
      'log:',
      '  level: silent',
      '',
    ].join('\n'),
  );
  return file;
}
