import { z } from 'zod';

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
  })
  .describe(
    'The control API (POST /jobs/{job}/run|pause|resume, /dead-letters/{id}/retry|discard, /cursors/{stream}/reset): ' +
      'served when server.auth is configured, or on loopback with loopback_without_auth',
  );
