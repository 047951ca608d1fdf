/** Turns stored webhook events into runs of the jobs that wait for them: pending ones at start, new ones as stored. */
import { WebhookDispatcher, type InboxStore } from '../../webhooks/index.js';
import type { Environment } from './environment.js';
import type { SchedulerService } from './scheduler-service.js';
import type { Service } from './service.js';

export class WebhookDispatchService implements Service {
  readonly name = 'webhook dispatch';
  #dispatcher: WebhookDispatcher | undefined;

  constructor(
    private readonly env: Environment,
    private readonly inbox: InboxStore,
    private readonly scheduler: SchedulerService,
  ) {}

  /** Event type -> the jobs it triggers. */
  mapping(): Record<string, string[]> {
    const mapping: Record<string, string[]> = {};
    for (const [name, built] of this.env.jobs) {
      for (const type of built.flow.triggerEvents) (mapping[type] ??= []).push(name);
    }
    return mapping;
  }

  /**
   * Dispatches the pending events, also those stored while dispatch was stopped. A second start while running does
   * nothing.
   */
  async start(): Promise<void> {
    if (this.#dispatcher !== undefined) return;
    const { logger } = this.env;
    const dispatcher = new WebhookDispatcher({
      inbox: this.inbox,
      mapping: this.mapping(),
      trigger: (job) => {
        this.scheduler
          .runNow(job, 'webhook')
          .catch((error: unknown) => logger.error({ err: error, job }, 'run failed'));
      },
      logger,
    });
    // Taking kicks before the pending pass: an event stored during that pass gets a pass of its own.
    this.#dispatcher = dispatcher;
    dispatcher.kick();
    await dispatcher.idle();
  }

  /** A new event was stored: dispatch soon. While stopped, events wait in the inbox for the next start. */
  kick(): void {
    this.#dispatcher?.kick();
  }

  async stop(): Promise<void> {
    const dispatcher = this.#dispatcher;
    this.#dispatcher = undefined;
    await dispatcher?.idle();
  }
}
