/** Certificates made with the openssl command line: a private root CA and leaf certificates it signs. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Issued {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
}

export interface TestCa extends Issued {
  readonly dir: string;
  readonly subject: string;
  /** A leaf for 127.0.0.1 and localhost (serverAuth and clientAuth). */
  issue(name: string, commonName?: string): Issued;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

const KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function issued(dir: string, name: string): Issued {
  const certFile = join(dir, `${name}.pem`);
  const keyFile = join(dir, `${name}.key`);
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

export function makeTestCa(commonName = 'Supply Test Root CA'): TestCa {
  const dir = mkdtempSync(join(tmpdir(), 'supply-sync-pki-'));
  const subject = `/O=Supply Test Corp/CN=${commonName}`;
  openssl(
    ['req', '-x509', ...KEY, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', subject],
    dir,
  );
  const ca = issued(dir, 'ca');
  return {
    ...ca,
    dir,
    subject,
    issue(name, leafName = '127.0.0.1') {
      writeFileSync(
        join(dir, `${name}.ext`),
        [
          'basicConstraints=CA:FALSE',
          'keyUsage=digitalSignature,keyEncipherment',
          'extendedKeyUsage=serverAuth,clientAuth',
          'subjectAltName=IP:127.0.0.1,DNS:localhost',
          '',
        ].join('\n'),
      );
      openssl(
        ['req', ...KEY, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${leafName}`],
        dir,
      );
      openssl(
        ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial'].concat(
          ['-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`],
        ),
        dir,
      );
      return issued(dir, name);
    },
  };
}
