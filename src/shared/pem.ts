/** Reading PEM files given in the config: certificate bundles, each certificate checked to parse. */
import { readFileSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

export class PemFileError extends Error {
  readonly code = 'config_invalid';
}

/** The file's text, or an error naming the config key and the reason (never the content). */
export function readPemFile(file: string, key: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unknown error';
    const reason = code === 'ENOENT' ? 'file not found' : `cannot read the file (${code})`;
    throw new PemFileError(`${key}: ${file}: ${reason}`);
  }
}

/** Every certificate of a PEM bundle; at least one, each one parseable. */
export function readCertificateBundle(file: string, key: string): string[] {
  const blocks = readPemFile(file, key).match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) {
    throw new PemFileError(
      `${key}: ${file}: no PEM certificate found (expected -----BEGIN CERTIFICATE----- blocks)`,
    );
  }
  blocks.forEach((block, index) => {
    try {
      new X509Certificate(block);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new PemFileError(`${key}: ${file}: certificate ${index + 1} does not parse (${reason})`);
    }
  });
  return blocks;
}
