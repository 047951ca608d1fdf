/**
 * A listener's certificate: read when its service starts (an unusable file fails the start, naming the key), and
 * reloaded while it runs when the files change on disk.
 */
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { Logger } from 'pino';
import { readServerTls, type ServerTlsFiles, type ServerTlsMaterial } from '../../ops/tls.js';
import { watchServerTls } from '../../ops/tls-reload.js';

export interface TlsConfig {
  readonly cert_file: string;
  readonly key_file: string;
  readonly ca_file?: string | undefined;
}

export interface ListenerTls {
  readonly files: ServerTlsFiles;
  readonly material: ServerTlsMaterial;
}

/** Reads the certificate named at `configKey` (e.g. 'server.tls'); undefined when the listener serves plain http. */
export function readListenerTls(tls: TlsConfig | undefined, configKey: string): ListenerTls | undefined {
  if (tls === undefined) return undefined;
  const files: ServerTlsFiles = { certFile: tls.cert_file, keyFile: tls.key_file, caFile: tls.ca_file };
  return { files, material: readServerTls(files, configKey) };
}

/** Reloads the certificate on change; returns how to stop watching (nothing to stop on plain http). */
export function watchListenerTls(
  server: Server | HttpsServer,
  tls: ListenerTls | undefined,
  logger: Logger,
): () => void {
  if (tls === undefined || !('setSecureContext' in server)) return () => undefined;
  return watchServerTls(server, tls.files, { logger });
}
