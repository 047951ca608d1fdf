/** Seconds between the status page's own refreshes. */
export const STATUS_REFRESH_SECONDS = 30;
