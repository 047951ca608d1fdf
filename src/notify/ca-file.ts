import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** A channel's ca_file, relative to the config file; an unreadable one names its key and what to do. */
export function readChannelCa(baseDir: string, file: string, channel: string): string {
  const path = resolve(baseDir, file);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new Error(
      `notifications.channels.${channel}.ca_file: cannot read ${path} (${code}); give the path of a PEM file of CA certificates`,
    );
  }
}
