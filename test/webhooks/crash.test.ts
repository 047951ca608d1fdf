import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { signatureHeader } from '../../src/webhooks/index.js';
import { compiledEntry } from '../support/compiled-entry.js';
import { eventBody } from './support.js';

const SECRET = 'whsec_crash_test';
const CHILD = fileURLToPath(new URL('./fixtures/receiver-child.ts', import.meta.url));

async function runAndKill(mode: 'wal' | 'sync'): Promise<{ acknowledged: string[]; stored: Set<string> }> {
  const dir = mkdtempSync(join(tmpdir(), 'supply-sync-crash-'));
  const file = join(dir, 'state.db');
  const child = spawn(process.execPath, [compiledEntry(CHILD), file, SECRET, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once('data', (data: Buffer) => resolve(Number(data.toString().trim())));
      child.once('exit', (code) => reject(new Error(`child exited early (${code})`)));
    });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const acknowledged: string[] = [];
    let sent = 0;
    const send = async (): Promise<void> => {
      while (sent < 400) {
        const id = `evt_${sent++}`;
        const body = eventBody(id);
        const header = signatureHeader([SECRET], Math.floor(Date.now() / 1000), Buffer.from(body));
        try {
          const response = await fetch(`http://127.0.0.1:${port}/webhooks`, {
            method: 'POST',
            body,
            headers: { 'service-signature': header },
          });
          if (response.status === 200) acknowledged.push(id);
          if (acknowledged.length === 150) child.kill('SIGKILL');
        } catch {
          // The connection died with the child: that request was never acknowledged.
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, send));
    await exited;
    const db = new Database(file, { readonly: true });
    const rows = db.prepare('SELECT event_id FROM inbox').all() as Array<{ event_id: string }>;
    db.close();
    return { acknowledged, stored: new Set(rows.map((row) => row.event_id)) };
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('webhook receiver killed with SIGKILL mid-load', () => {
  it.each(['wal', 'sync'] as const)('has stored every event it acknowledged (%s inbox)', async (mode) => {
    const { acknowledged, stored } = await runAndKill(mode);
    expect(acknowledged.length).toBeGreaterThanOrEqual(150);
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
  });
});
