/**
 * What the running daemon itself counted while faults were on, read from its /metrics: the answers its API calls
 * got (a 500, 429 or network_error there is an attempt the client then retried) and the webhooks it refused or
 * recognised as already stored. This shows the faults reached the daemon, not just the harness.
 */

export interface DaemonCounters {
  /** API call attempts by HTTP status, or by error code when no answer came (network_error, deadline_exceeded). */
  apiCallsByStatus: Record<string, number>;
  /** Webhook requests refused, by reason (timestamp_out_of_tolerance for skewed signatures). */
  webhooksRejected: Record<string, number>;
  /** Verified webhook events that were already stored (duplicate deliveries). */
  webhooksDuplicate: number;
  webhooksReceived: number;
}

/** API call attempts that met an injected fault and so had to be retried. */
export function faultedCalls(counters: DaemonCounters): number {
  return Object.entries(counters.apiCallsByStatus)
    .filter(([status]) => status === '429' || /^5\d\d$/.test(status) || status === 'network_error')
    .reduce((sum, [, count]) => sum + count, 0);
}

/** Webhook requests the daemon answered: events stored, recognised as already stored, or refused. */
export function webhookArrivals(counters: DaemonCounters): number {
  return (
    counters.webhooksReceived +
    counters.webhooksDuplicate +
    Object.values(counters.webhooksRejected).reduce((sum, count) => sum + count, 0)
  );
}

export async function readDaemonCounters(opsUrl: string): Promise<DaemonCounters> {
  const response = await fetch(`${opsUrl}/metrics`, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`GET ${opsUrl}/metrics answered ${response.status}`);
  return countersFrom(await response.text());
}

const SAMPLE = /^(supply_sync_[a-z_]+)(?:\{([^}]*)\})? ([0-9.e+-]+)$/;

/** Sums the Prometheus text exposition's samples of the four counters, by the one label that matters here. */
export function countersFrom(text: string): DaemonCounters {
  const counters: DaemonCounters = {
    apiCallsByStatus: {},
    webhooksRejected: {},
    webhooksDuplicate: 0,
    webhooksReceived: 0,
  };
  for (const line of text.split('\n')) {
    const match = SAMPLE.exec(line.trim());
    if (match === null) continue;
    const [, name, labelText = '', valueText = '0'] = match;
    const value = Number(valueText);
    const labels = Object.fromEntries(
      [...labelText.matchAll(/([a-z_]+)="([^"]*)"/g)].map((m) => [m[1] ?? '', m[2] ?? '']),
    );
    if (name === 'supply_sync_api_calls_total') add(counters.apiCallsByStatus, labels['status'], value);
    else if (name === 'supply_sync_webhooks_rejected_total')
      add(counters.webhooksRejected, labels['reason'], value);
    else if (name === 'supply_sync_webhooks_duplicate_total') counters.webhooksDuplicate += value;
    else if (name === 'supply_sync_webhooks_received_total') counters.webhooksReceived += value;
  }
  return counters;
}

function add(into: Record<string, number>, key: string | undefined, value: number): void {
  const name = key ?? 'unknown';
  into[name] = (into[name] ?? 0) + value;
}
