/** Steady-rate activity: calls domain actions at a fixed rate, picked by weight from a mix, with a seeded draw. */
import { validationError } from '../http/problem.js';
import { seededRandom } from '../platform/ids.js';

export interface SimulationStatus {
  running: boolean;
  actions_per_second: number;
  mix: Record<string, number>;
  performed: number;
  failed: number;
  last_error: string | null;
}

/** Everyday activity that needs no arguments; faults and odd data are opt-in through an explicit mix. */
const DEFAULT_MIX: Record<string, number> = {
  buyer_send_order: 4,
  approve_journal_lines: 1,
  create_expense: 1,
  complete_inventory_count: 1,
  update_supplier: 1,
};

function defaultMix(available: Record<string, unknown>): Record<string, number> {
  const known = Object.entries(DEFAULT_MIX).filter(([name]) => name in available);
  if (known.length > 0) return Object.fromEntries(known);
  return Object.fromEntries(Object.keys(available).map((name) => [name, 1]));
}

export class Simulator {
  private timer: NodeJS.Timeout | null = null;
  private status: SimulationStatus = {
    running: false,
    actions_per_second: 0,
    mix: {},
    performed: 0,
    failed: 0,
    last_error: null,
  };

  constructor(
    private readonly actions: () => Record<string, (body: unknown) => unknown>,
    private readonly afterAction: () => void,
  ) {}

  start(input: unknown): SimulationStatus {
    const body = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
    const rate = body['actions_per_second'] ?? 1;
    if (typeof rate !== 'number' || rate <= 0 || rate > 1000) {
      throw validationError([
        { field: 'actions_per_second', code: 'out_of_range', message: 'Between 0 and 1000.' },
      ]);
    }
    const available = this.actions();
    const mixInput = body['mix'] ?? defaultMix(available);
    if (typeof mixInput !== 'object' || mixInput === null)
      throw validationError([{ field: 'mix', code: 'invalid_format' }]);
    const mix: Record<string, number> = {};
    for (const [name, weight] of Object.entries(mixInput as Record<string, unknown>)) {
      if (!(name in available))
        throw validationError([
          { field: `mix.${name}`, code: 'unsupported_value', message: 'Unknown action.' },
        ]);
      if (typeof weight !== 'number' || weight < 0)
        throw validationError([{ field: `mix.${name}`, code: 'out_of_range' }]);
      if (weight > 0) mix[name] = weight;
    }
    if (Object.keys(mix).length === 0)
      throw validationError([{ field: 'mix', code: 'required', message: 'No actions to run.' }]);
    this.stop();
    const seed = typeof body['seed'] === 'number' ? body['seed'] : 1;
    const random = seededRandom(seed);
    const total = Object.values(mix).reduce((sum, weight) => sum + weight, 0);
    this.status = { running: true, actions_per_second: rate, mix, performed: 0, failed: 0, last_error: null };
    this.timer = setInterval(() => {
      let draw = random() * total;
      const name =
        Object.keys(mix).find((candidate) => (draw -= mix[candidate] ?? 0) < 0) ?? Object.keys(mix)[0];
      const action = name === undefined ? undefined : this.actions()[name];
      if (!action) return;
      try {
        action({});
        this.status.performed++;
      } catch (error) {
        this.status.failed++;
        this.status.last_error = error instanceof Error ? error.message : String(error);
      }
      this.afterAction();
    }, 1000 / rate);
    this.timer.unref();
    return this.current();
  }

  stop(): SimulationStatus {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.status.running = false;
    return this.current();
  }

  current(): SimulationStatus {
    return { ...this.status, mix: { ...this.status.mix } };
  }
}
