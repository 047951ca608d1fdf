/** The certificate and key the daemon's own server presents, checked to parse and to belong together. */
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import type { SecureContextOptions } from 'node:tls';
import { PemFileError, readCertificateBundle, readPemFile } from '../shared/pem.js';

export interface ServerTlsFiles {
  readonly certFile: string;
  readonly keyFile: string;
  readonly caFile?: string | undefined;
}

export interface ServerTlsMaterial {
  readonly context: SecureContextOptions;
  /** Clients must present a certificate signed by the given CAs. */
  readonly requireClientCertificate: boolean;
  /** Subject and expiry of the leaf, for logs. */
  readonly subject: string;
  readonly validTo: string;
}

/** Reads and checks the files; errors name the config key and the file, never the key material. */
export function readServerTls(files: ServerTlsFiles, prefix = 'server.tls'): ServerTlsMaterial {
  const cert = readPemFile(files.certFile, `${prefix}.cert_file`);
  const key = readPemFile(files.keyFile, `${prefix}.key_file`);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch {
    throw new PemFileError(`${prefix}.cert_file: ${files.certFile}: not a PEM certificate`);
  }
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    throw new PemFileError(
      `${prefix}.key_file: ${files.keyFile}: not a PEM private key (or it is encrypted)`,
    );
  }
  if (!certificate.checkPrivateKey(privateKey)) {
    throw new PemFileError(
      `${prefix}.key_file: ${files.keyFile} does not match the certificate in ${prefix}.cert_file (${files.certFile})`,
    );
  }
  const ca =
    files.caFile === undefined ? undefined : readCertificateBundle(files.caFile, `${prefix}.ca_file`);
  return {
    context: { cert, key, ...(ca === undefined ? {} : { ca }) },
    requireClientCertificate: ca !== undefined,
    subject: certificate.subject.split('\n').join(', '),
    validTo: certificate.validTo,
  };
}
