/**
 * Every code a command or a control API call can end with, and the HTTP status the control API answers it with. One
 * table for the routes, GET /commands/{id} and docs/control-api.json (a test holds the document to it).
 */
export const STATUS_BY_CODE: Readonly<Record<string, number>> = {
  usage: 400,
  unknown_command: 400,
  unknown_job: 404,
  dead_letter_not_found: 404,
  cursor_not_found: 404,
  command_not_found: 404,
  job_disabled: 409,
  job_paused: 409,
  job_paused_already: 409,
  job_not_paused: 409,
  dead_letter_closed: 409,
  dead_letter_is_file: 409,
  config_mismatch: 409,
  mappings_differ: 409,
  restart_needed: 409,
  api_unavailable: 409,
  webhook_not_registered: 409,
  cancelled: 409,
  command_not_pending: 409,
  expired: 410,
  config_invalid: 422,
  queue_full: 429,
  command_failed: 500,
  run_failed: 502,
  too_many_attempts: 503,
  office_stopping: 503,
};

/** The status of a code; a code missing from the table is a fault of ours, answered 500. */
export function statusOfCode(code: string | null): number {
  return STATUS_BY_CODE[code ?? ''] ?? 500;
}
