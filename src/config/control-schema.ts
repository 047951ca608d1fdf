import { z } from 'zod';
import { duration } from './duration.js';

/** `server.control`: the control API and the status page's buttons. */
export const controlApiSchema = z
  .strictObject({
    loopback_without_auth: z
      .boolean()
      .meta({
        description:
          'Serve the control API without server.auth, for callers on this host only; server.host must be a loopback ' +
          'address (127.0.0.1, ::1). Anyone who can open a connection on this host can then act on the daemon',
      })
      .default(false),
    command_ttl: duration()
      .meta({
        description:
          'How long a queued command waits for a daemon to take it before it is recorded `expired` and nothing is ' +
          'done (default 1h)',
      })
      .optional(),
    max_pending_per_kind: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .meta({
        description:
          'How many commands of one kind may wait in the queue; one more is refused (429, queue_full) naming the ' +
          'oldest pending one (default 10)',
      })
      .optional(),
  })
  .describe(
    'The control API (POST /jobs/{job}/run|pause|resume, /dead-letters/{id}/retry|discard, /cursors/{stream}/reset): ' +
      'served when server.auth is configured, or on loopback with loopback_without_auth',
  );
