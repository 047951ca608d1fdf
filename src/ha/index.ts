/** Leader election and write fencing for instances sharing a PostgreSQL state. */
export {
  DEFAULT_LEASE_MS,
  DEFAULT_POLL_INTERVAL_MS,
  defaultInstanceName,
  defaultWriteTimeoutMs,
  writeHeadroomMs,
  writeMarginMs,
  failoverBoundMs,
  haConfigSchema,
  haSettings,
  type HaConfig,
  type HaConfigInput,
  type HaSettings,
} from './config-schema.js';
export {
  Elector,
  type ElectorLog,
  type ElectorOptions,
  type ElectorStatus,
  type LeaderView,
} from './elector.js';
export {
  describeStateUrl,
  LeaseDatabaseError,
  leaseDatabaseError,
  type LeaseDatabaseCode,
} from './errors.js';
// The error a refused fence throws is the state's (src/state/sql-port.ts); here for the fence's callers.
export { LeadershipLostError, type LeadershipLostCode } from '../state/sql-port.js';
export {
  fencedSessionSettings,
  type FencedSessionSettings,
  LeaderFence,
  termFence,
  type AsyncQueryable,
  type Term,
  type WriteFence,
} from './fence.js';
export { boundTerm, runInTerm } from './job-term.js';
export { Membership, type MembershipOptions } from './membership.js';
export { MEMBERS_TABLE } from './membership-sql.js';
export { DUTIES_TABLE, OfficeDuties, type DutyClaim } from './office-duties.js';
export { CREATE_LEASE_TABLE_SQL, FENCE_SQL, LEASE_TABLE, RELEASE_CHANNEL } from './lease-sql.js';
