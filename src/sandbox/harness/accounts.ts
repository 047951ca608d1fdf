/** POST and GET /_sandbox/accounts: the request a created account is made from, and how one is shown. */
import { validationError } from '../http/problem.js';
import type { CreatedAccount, NewAccount, PlanName } from '../http/types.js';
import { ACCOUNT_PLANS } from '../platform/keys.js';
import type { PlatformContext } from '../platform/context.js';

const MAX_NAME_LENGTH = 200;

type FieldError = { field: string; code: string; message: string };

function typeError(value: unknown): FieldError[] {
  if (value === 'buyer' || value === 'supplier') return [];
  return [
    {
      field: 'type',
      code: value === undefined ? 'required' : 'unsupported_value',
      message: 'buyer or supplier.',
    },
  ];
}

function nameError(value: unknown): FieldError[] {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name !== '' && name.length <= MAX_NAME_LENGTH) return [];
  return [
    {
      field: 'name',
      code: value === undefined ? 'required' : 'invalid',
      message: `The account's name: 1 to ${MAX_NAME_LENGTH} characters, not only spaces.`,
    },
  ];
}

const FIELDS = new Set(['type', 'name', 'seed', 'plan']);

function unknownFieldErrors(input: Record<string, unknown>): FieldError[] {
  return Object.keys(input)
    .filter((key) => !FIELDS.has(key))
    .map((key) => ({
      field: key,
      code: 'unsupported_value',
      message: 'Not a field of an account: type, name, seed, plan.',
    }));
}

/** The seed generator takes 32 bits: a larger seed would repeat a smaller one's data. */
const MAX_SEED = 2 ** 32 - 1;

function seedError(value: unknown): FieldError[] {
  if (
    value === undefined ||
    (Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX_SEED)
  )
    return [];
  return [
    {
      field: 'seed',
      code: typeof value === 'number' ? 'out_of_range' : 'invalid_format',
      message: `A whole number from 0 to ${MAX_SEED}, or leave it out.`,
    },
  ];
}

function planError(type: unknown, value: unknown): FieldError[] {
  if (value === undefined || (type !== 'buyer' && type !== 'supplier')) return [];
  const plans = ACCOUNT_PLANS[type];
  if (plans.includes(value as PlanName)) return [];
  return [{ field: 'plan', code: 'unsupported_value', message: `For a ${type}: ${plans.join(', ')}.` }];
}

/**
 * `{ "type": "buyer" | "supplier", "name": "...", "seed"?: n, "plan"?: "Basic" | "Pro" | "Enterprise" }`, else 422
 * naming every field at fault.
 */
export function parseNewAccount(body: unknown): NewAccount {
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const errors = [
    ...typeError(input.type),
    ...nameError(input.name),
    ...seedError(input.seed),
    ...planError(input.type, input.plan),
    ...unknownFieldErrors(input),
  ];
  if (errors.length > 0) throw validationError(errors, 'The account request is not valid.');
  return {
    type: input.type as NewAccount['type'],
    name: (input.name as string).trim(),
    ...(input.seed === undefined ? {} : { seed: input.seed as number }),
    ...(input.plan === undefined ? {} : { plan: input.plan as PlanName }),
  };
}

/** The account with the key its integration uses (the harness answers loopback callers only, as /keys does). */
export function presentAccount(ctx: PlatformContext, account: CreatedAccount): Record<string, unknown> {
  const client = ctx.state.clients.find((candidate) => candidate.id === account.clientId);
  return {
    id: account.id,
    type: account.type,
    name: account.name,
    seed: account.seed,
    plan: account.plan,
    client_id: account.clientId,
    key: client?.key ?? null,
    scopes: client?.scopes ?? [],
    created_at: account.createdAt,
  };
}
