/**
 * The update-time bound of document reads. A read asks only for documents changed at or after the start of the last
 * read whose documents were all marked sent, less an overlap for the difference between this host's clock and the
 * ERP's. A document read but not marked (its send failed) keeps the bound where it was, so it is read again. The
 * documents flow keeps the bound in the state (`settled`, `resume`), so a restart goes on from it.
 */
export class UpdateWatermark {
  #since: Date | undefined;
  #started: Date | undefined;
  readonly #unmarked = new Set<string>();

  constructor(
    private readonly overlapSeconds: number,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Starts a read; the instant documents must have changed at or after, or undefined for every document. */
  begin(): Date | undefined {
    if (this.#started !== undefined && this.#unmarked.size === 0) this.#since = this.#started;
    this.#started = new Date(this.now().getTime() - this.overlapSeconds * 1000);
    this.#unmarked.clear();
    return this.#since;
  }

  /** The bound the state holds, before a read: the in-memory one is replaced by it. */
  resume(since: Date | undefined): void {
    this.#since = since;
    this.#started = undefined;
    this.#unmarked.clear();
  }

  /** The bound the next read starts from: the last read's start once every document it returned was marked. */
  settled(): Date | undefined {
    return this.#started !== undefined && this.#unmarked.size === 0 ? this.#started : this.#since;
  }

  returned(refs: readonly string[]): void {
    for (const ref of refs) this.#unmarked.add(ref);
  }

  marked(ref: string): void {
    this.#unmarked.delete(ref);
  }
}

/** An instant as the ERP's local date and time of day in a time zone (UTC when none), `['2026-11-28', '22:15:00']`. */
export function localDateTime(instant: Date, timeZone: string | undefined): [string, string] {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: timeZone ?? 'UTC',
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(instant);
  const part = (type: string) => parts.find((candidate) => candidate.type === type)?.value ?? '00';
  return [
    `${part('year')}-${part('month')}-${part('day')}`,
    `${part('hour')}:${part('minute')}:${part('second')}`,
  ];
}

/** `date gt D or (date eq D and time ge T)`: changed at or after the instant, with the date and time kept apart. */
export function updatedSinceFilter(
  updated: { readonly date: string; readonly time: string },
  since: Date,
  timeZone: string | undefined,
): string {
  const [date, time] = localDateTime(since, timeZone);
  return `(${updated.date} gt ${date} or (${updated.date} eq ${date} and ${updated.time} ge ${time}))`;
}
