/** One doctor finding: printed as one line, OK/WARN/FAIL, with the fix for anything not OK. */
export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface DoctorCheck {
  readonly status: CheckStatus;
  readonly name: string;
  readonly detail: string;
  readonly fix?: string;
}

export function check(status: CheckStatus, name: string, detail: string, fix?: string): DoctorCheck {
  return fix === undefined ? { status, name, detail } : { status, name, detail, fix };
}

export function formatCheck(item: DoctorCheck): string {
  const label = item.status === 'ok' ? 'OK  ' : item.status === 'warn' ? 'WARN' : 'FAIL';
  const fix = item.status !== 'ok' && item.fix ? ` -> fix: ${item.fix}` : '';
  return `${label} ${item.name.padEnd(18)} ${item.detail}${fix}`;
}
