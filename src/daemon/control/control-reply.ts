/** A control API answer: what a route, a body check or a refusal gives the caller. */
export interface ControlReply {
  readonly status: number;
  readonly body: unknown;
  readonly location?: string;
  /** Seconds, sent as Retry-After (a full queue). */
  readonly retryAfter?: number;
}
