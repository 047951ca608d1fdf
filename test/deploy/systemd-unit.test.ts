/**
 * deploy/supply-sync.service checked by systemd's own parser: `systemd-analyze verify` must print nothing. The
 * same run on a copy with the restart limit under [Service] shows the oracle does report misplaced keys.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { requireServices } from '../connectors/services.js';

const UNIT = join(import.meta.dirname, '../../deploy/supply-sync.service');
const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
const available = probe.status === 0;
const reason = 'systemd-analyze is not installed (Debian package systemd)';
requireServices({ service: 'systemd-analyze', available, reason });

/** Verifies a copy named like the real unit; ExecStart must name an existing node, so it points at this one. */
function verify(text: string): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'supply-sync-unit-'));
  const file = join(dir, 'supply-sync.service');
  const node = existsSync('/usr/bin/node') ? '/usr/bin/node' : process.execPath;
  writeFileSync(file, text.replaceAll('/usr/bin/node', node));
  const result = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

describe.skipIf(!available)('the systemd unit', () => {
  it('passes systemd-analyze verify without a warning', () => {
    const result = verify(readFileSync(UNIT, 'utf8'));
    expect(result.output).toBe('');
    expect(result.status).toBe(0);
  });

  it('is reported by the same check when the restart limit sits in [Service]', () => {
    const text = readFileSync(UNIT, 'utf8');
    const moved = text
      .replace(/^StartLimitIntervalSec=300\n/m, '')
      .replace(/^\[Service\]\n/m, '[Service]\nStartLimitIntervalSec=300\n');
    expect(moved).not.toBe(text);
    expect(verify(moved).output).toMatch(/Unknown key 'StartLimitIntervalSec' in section \[Service\]/);
  });
});

if (!available) {
  describe('the systemd unit', () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
}
