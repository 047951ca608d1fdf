/**
 * Puts renewed certificate files in force without a restart: on a change of any of the files the pair is read
 * again and, when it is whole and matching, given to the server with setSecureContext. Connections already open
 * (and requests on them) carry on; new handshakes use the new certificate. A half-written renewal (new
 * certificate, old key) is logged and skipped: the next change completes it.
 */
import { unwatchFile, watchFile, type Stats } from 'node:fs';
import type { Server } from 'node:tls';
import type { Logger } from 'pino';
import { readServerTls, type ServerTlsFiles } from './tls.js';

export interface TlsReloadOptions {
  logger?: Logger | undefined;
  /** How often the files' modification times are polled; default 1 s. */
  intervalMs?: number;
  onReload?: (subject: string) => void;
}

export function watchServerTls(
  server: Server,
  files: ServerTlsFiles,
  options: TlsReloadOptions = {},
): () => void {
  const paths = [files.certFile, files.keyFile, ...(files.caFile === undefined ? [] : [files.caFile])];
  const reload = (current: Stats, previous: Stats): void => {
    if (current.mtimeMs === previous.mtimeMs && current.size === previous.size) return;
    try {
      const material = readServerTls(files);
      server.setSecureContext(material.context);
      options.logger?.info(
        { subject: material.subject, validTo: material.validTo },
        'TLS certificate reloaded',
      );
      options.onReload?.(material.subject);
    } catch (error) {
      options.logger?.warn(
        { reason: error instanceof Error ? error.message : String(error) },
        'TLS files changed but cannot be used yet; the current certificate stays in force',
      );
    }
  };
  for (const path of paths)
    watchFile(path, { interval: options.intervalMs ?? 1000, persistent: false }, reload);
  return () => {
    for (const path of paths) unwatchFile(path, reload);
  };
}
