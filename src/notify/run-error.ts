/**
 * A run's stored error as a person reads it: what happened in plain words and what to do, the fix said as `doctor`
 * and /readyz say it. The stored text (e.g. "ApiError: GET /me failed with HTTP 401 key_revoked: …") is kept only
 * as a technical detail, without the error class in front.
 */
import { credentialFix, isCredentialCode, UNREACHABLE_FIX } from '../shared/api-fixes.js';

export interface RunErrorText {
  readonly what: string;
  readonly fix: string;
  readonly detail: string | null;
}

const API_ANSWER = /^(?:\w*Error: )?([A-Z]+ \S+) failed with HTTP (\d{3}) ([a-z_]+)/;

/**
 * The fix for a stored run error the API's refusal of the key caused, or null for any other error.
 * @param keySetting the setting to change, as the config names it (e.g. api.api_key_file).
 */
export function refusedKeyFix(error: string, keySetting: string): string | null {
  const code = API_ANSWER.exec(error)?.[3];
  return isCredentialCode(code) ? `${credentialFix(code)} (${keySetting})` : null;
}

/**
 * The API could not be reached at all: the API client's network failure, not an answer. Matched on the client's
 * words only: an ERP database's ECONNREFUSED is not the API's.
 */
const UNREACHABLE = /network_error|failed: network error|fetch failed/;

/**
 * A stored run error as the CLI lists it: without the error class in front, and with the fix appended when the API
 * refused the key or could not be reached.
 */
export function withRunErrorFix(error: string, keySetting: string): string {
  const text = error.replace(/^\w*Error: /, '');
  const keyFix = refusedKeyFix(error, keySetting);
  if (keyFix !== null) return `${text}; to fix: ${keyFix}, then run the job again`;
  if (UNREACHABLE.test(error)) return `${text}; to fix: ${UNREACHABLE_FIX}, then run the job again`;
  return text;
}

export function describeRunError(
  error: string | null,
  keySetting = 'api.api_key or api.api_key_file',
): RunErrorText {
  if (error === null) {
    return {
      what: 'The run failed without recording why.',
      fix: 'look at the log of that run (supply-sync status lists the run)',
      detail: null,
    };
  }
  const detail = error.replace(/^\w*Error: /, '');
  const answer = API_ANSWER.exec(error);
  if (answer !== null) {
    const [, call = '', status = '', code = ''] = answer;
    const keyFix = refusedKeyFix(error, keySetting);
    if (keyFix !== null)
      return {
        what: `The API refused the key (HTTP ${status} ${code} on ${call}).`,
        fix: `${keyFix}, then restart supply-sync or run the job again`,
        detail,
      };
    if (Number(status) >= 500 || status === '429')
      return {
        what: `The API was not available (HTTP ${status} on ${call}).`,
        fix: 'nothing to change if it passes: the next run tries again; if it lasts, check the API status page',
        detail,
      };
  }
  if (UNREACHABLE.test(error))
    return {
      what: 'The API could not be reached.',
      fix: UNREACHABLE_FIX,
      detail,
    };
  return {
    what: `The run stopped: ${detail}`,
    fix: 'fix what the error names, then run the job again (supply-sync sync <job>)',
    detail: null,
  };
}
