import * as z from 'zod';
import { duration } from './duration.js';

/** The file the daemon writes its local operator token to when server.control.local_token_file is not set. */
export const DEFAULT_LOCAL_TOKEN_NAME = 'control-token';

/**
 * The key of the removed loopback mode stays known, so a config that still sets it is told what replaced it
 * instead of "unknown key", and a daemon never starts with a control plane open to anything proxying from this host.
 */
const removedLoopbackMode = z
  .boolean()
  .optional()
  .refine((value) => value !== true, {
    error:
      'is no longer supported: anything that proxies from this host (a local nginx) got control without credentials. ' +
      'Remove it: on this host use the token in server.control.local_token_file (written at start, readable by the ' +
      "daemon's user only), and give other callers server.auth.users with role operator",
  })
  .describe('Removed: true is refused; false (or leaving it out) changes nothing')
  .meta({ examples: [false] });

/** `server.control`: the control API and the status page's buttons. */
export const controlApiSchema = z
  .strictObject({
    loopback_without_auth: removedLoopbackMode,
    local_token_file: z
      .string()
      .min(1)
      .optional()
      .describe(
        `Where the daemon writes, at each start, a fresh operator token readable by its own user only (0600): a ` +
          `caller on this host that reads it acts as local:<user>, never through a proxy. Default: ${DEFAULT_LOCAL_TOKEN_NAME} ` +
          'beside the state file; relative to the config file',
      )
      .meta({ examples: ['/var/lib/supply-sync/control-token'] }),
    command_ttl: duration()
      .meta({
        description:
          'How long a queued command waits for a daemon to take it before it is recorded `expired` and nothing is ' +
          'done (default 1h)',
        examples: ['1h'],
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
        examples: [10],
      })
      .optional(),
  })
  .describe(
    'The control API (POST /jobs/{job}/run|pause|resume, /dead-letters/..., /cursors/{stream}/reset, /config/reload): ' +
      'an operator of server.auth, or the local token, may act; a viewer may read',
  );
