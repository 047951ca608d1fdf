/** Errors of a daemon start, retold with the config key to change and how. */
import type { LoadedConfig } from '../config/index.js';
import { StateLockedError } from '../state/index.js';

export class DaemonStartError extends Error {
  override readonly name = 'DaemonStartError';
  constructor(
    message: string,
    readonly code: string,
    readonly configKey: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** The errno code of a failed `listen` (the server's port or host); other failures (state files...) are not. */
function listenErrorCode(error: unknown): string | undefined {
  const { code, syscall } = (error as { code?: unknown; syscall?: unknown } | null) ?? {};
  return typeof code === 'string' && syscall === 'listen' ? code : undefined;
}

/**
 * The start error a user can act on: which key of which file, and the fix. `portOverride` is the `--port` given
 * on the command line, if any, since then that is what to change.
 */
export function explainStartError(error: unknown, loaded: LoadedConfig, portOverride?: number): unknown {
  const { file, config } = loaded;
  if (error instanceof StateLockedError) {
    return new DaemonStartError(
      `${file}: state.path: ${error.message}; or give this daemon its own state.path`,
      'state_locked',
      'state.path',
      { cause: error },
    );
  }
  const code = listenErrorCode(error);
  const port = portOverride ?? config.server.port;
  const where = portOverride === undefined ? `${file}: server.port` : '--port';
  const address = `${config.server.host}:${port}`;
  if (code === 'EADDRINUSE') {
    return new DaemonStartError(
      `${where}: ${address} is already in use by another process; set ${portOverride === undefined ? 'server.port' : '--port'} ` +
        `to a free port, or stop the process listening there (find it with: ss -ltnp 'sport = :${port}')`,
      'port_in_use',
      'server.port',
      { cause: error },
    );
  }
  if (code === 'EACCES') {
    return new DaemonStartError(
      `${where}: not allowed to listen on ${address} (ports below 1024 need privileges); use a port of 1024 or above`,
      'port_not_allowed',
      'server.port',
      { cause: error },
    );
  }
  if (code === 'EADDRNOTAVAIL') {
    return new DaemonStartError(
      `${file}: server.host: ${config.server.host} is not an address of this machine; use 127.0.0.1 or one of its addresses`,
      'host_not_available',
      'server.host',
      { cause: error },
    );
  }
  return error;
}
