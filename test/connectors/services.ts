import { describe, it } from 'vitest';

export interface ServiceProbe {
  readonly service: string;
  readonly available: boolean;
  readonly reason: string;
}

/** Tries to reach a server; the reason names where it looked, never the credentials. */
export async function serviceProbe(
  service: string,
  url: string,
  connect: () => Promise<void>,
): Promise<ServiceProbe> {
  try {
    await connect();
    return { service, available: true, reason: '' };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { service, available: false, reason: `${service} not reachable at ${where(url)}: ${detail}` };
  }
}

/**
 * With SUPPLY_SYNC_REQUIRE_SERVICES=1 (CI) a missing server is a failure, not a skip: this registers a test that
 * fails with the reason.
 */
export function requireServices(probe: ServiceProbe): void {
  if (probe.available || process.env['SUPPLY_SYNC_REQUIRE_SERVICES'] !== '1') return;
  describe(`${probe.service} is required (SUPPLY_SYNC_REQUIRE_SERVICES=1)`, () => {
    it(`reaches ${probe.service}`, () => {
      throw new Error(probe.reason);
    });
  });
}

function where(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port}${parsed.pathname}`;
  } catch {
    return '(configured connection string)';
  }
}
