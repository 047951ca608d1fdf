/** Errors of a daemon start, retold with the config key to change and how. */
import { dirname, isAbsolute, relative } from 'node:path';
import type { LoadedConfig } from '../../config/index.js';
import {
  StateDatabaseError,
  StateFileError,
  StateLockedError,
  stateLockedMessage,
  StateSchemaTooNewError,
} from '../../state/index.js';
import { labelledTime } from '../../ops/time-format.js';

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

interface SystemErrorFields {
  code?: unknown;
  syscall?: unknown;
  port?: unknown;
  path?: unknown;
}

function field(error: unknown, name: keyof SystemErrorFields): unknown {
  return (error as SystemErrorFields | null)?.[name];
}

/**
 * The start error a user can act on: which key of which file, and the fix. `portOverride` is the `--port` given
 * on the command line, if any, since then that is what to change.
 */
export function explainStartError(error: unknown, loaded: LoadedConfig, portOverride?: number): unknown {
  const { file, config } = loaded;
  const state = explainStateError(error, loaded);
  if (state !== undefined) return state;
  if (field(error, 'syscall') !== 'listen') return error;
  const code = field(error, 'code');
  // A separate webhook listener has its own port; the error's port says which listener failed.
  const webhookPort = config.server.webhooks?.port;
  const onWebhookListener = webhookPort !== undefined && field(error, 'port') === webhookPort;
  const port = onWebhookListener ? webhookPort : (portOverride ?? config.server.port);
  const portKey = onWebhookListener ? 'server.webhooks.port' : 'server.port';
  const where = onWebhookListener || portOverride === undefined ? `${file}: ${portKey}` : '--port';
  const host = onWebhookListener ? (config.server.webhooks?.host ?? config.server.host) : config.server.host;
  const address = `${host}:${port}`;
  if (code === 'EADDRINUSE') {
    return new DaemonStartError(
      `${where}: ${address} is already in use by another process; set ${where.endsWith('--port') ? '--port' : portKey} ` +
        `to a free port, or stop the process listening there (find it with: ss -ltnp 'sport = :${port}')`,
      'port_in_use',
      portKey,
      { cause: error },
    );
  }
  if (code === 'EACCES') {
    return new DaemonStartError(
      `${where}: not allowed to listen on ${address} (ports below 1024 need privileges); use a port of 1024 or above`,
      'port_not_allowed',
      portKey,
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

/**
 * A state that could not be opened, told at the config file that points there (a company's own file in an office):
 * the daemon's start and `status --all` both say it so. Undefined for an error that is not about opening the state.
 */
export function explainStateError(error: unknown, loaded: LoadedConfig): DaemonStartError | undefined {
  const { file } = loaded;
  if (error instanceof StateLockedError) {
    return new DaemonStartError(
      `${file}: state.path: ${stateLockedMessage(error.file, error.holder, (ms) => labelledTime(ms, loaded.config.timezone))}; ` +
        'or give this daemon its own state.path',
      'state_locked',
      'state.path',
      { cause: error },
    );
  }
  // Each message starts with the key (state.path or state.url) and says where it points, never with the password.
  if (error instanceof StateDatabaseError) {
    return new DaemonStartError(`${file}: ${error.message}`, error.code, 'state.url', { cause: error });
  }
  if (error instanceof StateFileError || error instanceof StateSchemaTooNewError) {
    return new DaemonStartError(`${file}: ${error.message}`, error.code, error.key, { cause: error });
  }
  const code = field(error, 'code');
  if ((code === 'EACCES' || code === 'EPERM') && field(error, 'syscall') !== 'listen') {
    return explainAccessError(error, loaded);
  }
  return undefined;
}

/** A folder or file of the state the daemon may not write: named, with the key that points there. */
function explainAccessError(error: unknown, loaded: LoadedConfig): DaemonStartError | undefined {
  const path = field(error, 'path');
  if (typeof path !== 'string') return undefined;
  const stateFolder = dirname(loaded.config.state.path);
  if (path !== loaded.config.state.path && !isInside(path, stateFolder)) return undefined;
  return new DaemonStartError(
    `${loaded.file}: state.path: permission denied (${String(field(error, 'code'))}) on ${path}; give the daemon's user write access to ` +
      `${stateFolder}, or set state.path to a folder it can write`,
    'state_not_writable',
    'state.path',
    { cause: error },
  );
}

function isInside(path: string, folder: string): boolean {
  const fromFolder = relative(folder, path);
  return fromFolder === '' || (!fromFolder.startsWith('..') && !isAbsolute(fromFolder));
}
