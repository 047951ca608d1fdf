import { describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../../src/config/index.js';
import { DaemonStartError, explainStartError } from '../../src/daemon/start/start-errors.js';
import {
  StateSchemaTooNewError,
  stateDatabaseNaming,
  stateFileNaming,
} from '../../src/state/schema-errors.js';

function systemError(fields: { code: string; syscall: string; port?: number; path?: string }): Error {
  return Object.assign(new Error(`${fields.syscall} ${fields.code}`), fields);
}

const loaded = {
  file: '/etc/supply-sync/config.yaml',
  warnings: [],
  config: {
    state: { path: '/var/lib/supply-sync/state/supply-sync.db' },
    server: { host: '127.0.0.1', port: 8080, webhooks: { port: 8443 } },
  },
} as unknown as LoadedConfig;

describe('explainStartError: the key to change and the fix', () => {
  it('names server.port for a port in use, and server.webhooks.port when the webhook listener failed', () => {
    const ops = explainStartError(systemError({ code: 'EADDRINUSE', syscall: 'listen', port: 8080 }), loaded);
    expect(ops).toBeInstanceOf(DaemonStartError);
    expect(ops).toMatchObject({ code: 'port_in_use', configKey: 'server.port' });
    expect((ops as Error).message).toContain('/etc/supply-sync/config.yaml: server.port: 127.0.0.1:8080');
    const hooks = explainStartError(
      systemError({ code: 'EADDRINUSE', syscall: 'listen', port: 8443 }),
      loaded,
    );
    expect(hooks).toMatchObject({ code: 'port_in_use', configKey: 'server.webhooks.port' });
  });

  it('tells a refused listen (a privileged port) from a state folder the daemon may not write', () => {
    const listen = explainStartError(
      systemError({ code: 'EACCES', syscall: 'listen', port: 80 }),
      loaded,
      80,
    );
    expect(listen).toMatchObject({ code: 'port_not_allowed', configKey: 'server.port' });
    const mkdir = explainStartError(
      systemError({ code: 'EACCES', syscall: 'mkdir', path: '/var/lib/supply-sync/state' }),
      loaded,
    );
    expect(mkdir).toMatchObject({ code: 'state_not_writable', configKey: 'state.path' });
    expect((mkdir as Error).message).toMatch(
      /state\.path: permission denied \(EACCES\) on \/var\/lib\/supply-sync\/state/,
    );
    expect((mkdir as Error).message).not.toMatch(/listen|port/);
  });

  it('names the key of a state written by a newer release: state.path for a file, state.url for a database', () => {
    const file = explainStartError(new StateSchemaTooNewError(99, 7, stateFileNaming('/srv/s.db')), loaded);
    expect(file).toMatchObject({ code: 'state_schema_too_new', configKey: 'state.path' });
    expect((file as Error).message).toBe(
      '/etc/supply-sync/config.yaml: state file /srv/s.db has state schema version 99, newer than this release ' +
        'supports (7); upgrade supply-sync on this host, or point state.path at another file',
    );
    const database = explainStartError(
      new StateSchemaTooNewError(99, 7, stateDatabaseNaming('db.example:5432/state')),
      loaded,
    );
    expect(database).toMatchObject({ code: 'state_schema_too_new', configKey: 'state.url' });
    expect((database as Error).message).toContain('point state.url at another database');
  });

  it('leaves other errors as they are', () => {
    const elsewhere = systemError({ code: 'EACCES', syscall: 'open', path: '/srv/erp/orders.csv' });
    expect(explainStartError(elsewhere, loaded)).toBe(elsewhere);
    const plain = new Error('something else');
    expect(explainStartError(plain, loaded)).toBe(plain);
  });
});
