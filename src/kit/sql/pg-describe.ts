import pg from 'pg';

/**
 * A protocol-level Parse + Describe of an unnamed statement, then Sync: the server analyses the statement against
 * its catalog (tables, columns, parameter types) and answers with its result columns, or with NoData for a
 * statement that returns none. Nothing is bound or executed. Submitted through pg's public Submittable interface.
 */
export class PgDescribe implements pg.Submittable {
  readonly done: Promise<readonly string[] | null>;
  #columns: readonly string[] | null = null;
  #resolve!: (columns: readonly string[] | null) => void;
  #reject!: (error: unknown) => void;

  constructor(private readonly text: string) {
    this.done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  submit(connection: pg.Connection): void {
    connection.parse({ name: '', text: this.text, types: [] }, true);
    connection.describe({ type: 'S', name: '' }, true);
    connection.sync();
  }

  handleRowDescription(message: { readonly fields: readonly { readonly name: string }[] }): void {
    this.#columns = message.fields.map((field) => field.name);
  }

  /** pg stops routing messages to a query once it reports an error, so the answer is settled here. */
  handleError(error: unknown): void {
    this.#reject(error);
  }

  handleReadyForQuery(): void {
    this.#resolve(this.#columns);
  }
}
