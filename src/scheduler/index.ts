export { parseCron, CronParseError, type CronSchedule } from './cron.js';
export { nextFireTime, fireTimesBetween } from './next-fire.js';
export { isValidTimeZone, offsetAt, wallTimeAt } from './zoned-time.js';
export {
  Scheduler,
  SchedulerStoppedError,
  UnknownJobError,
  type RunJobFn,
  type ScheduledJobSpec,
  type SchedulerEvent,
  type SchedulerOptions,
  type SchedulerTrigger,
} from './scheduler.js';
export { handleShutdownSignals, type ShutdownOptions } from './shutdown.js';
