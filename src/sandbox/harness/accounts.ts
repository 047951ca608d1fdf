/** POST and GET /_sandbox/accounts: the request a created account is made from, and how one is shown. */
import { validationError } from '../http/problem.js';
import type { CreatedAccount, NewAccount } from '../http/types.js';
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
  if (typeof value === 'string' && value.trim() !== '' && value.length <= MAX_NAME_LENGTH) return [];
  return [
    {
      field: 'name',
      code: value === undefined ? 'required' : 'invalid',
      message: `The account's name, 1 to ${MAX_NAME_LENGTH} characters.`,
    },
  ];
}

function seedError(value: unknown): FieldError[] {
  if (value === undefined || (Number.isSafeInteger(value) && (value as number) >= 0)) return [];
  return [{ field: 'seed', code: 'out_of_range', message: 'A non-negative whole number, or leave it out.' }];
}

/** `{ "type": "buyer" | "supplier", "name": "...", "seed"?: n }`, else 422 naming every field at fault. */
export function parseNewAccount(body: unknown): NewAccount {
  const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const errors = [...typeError(input.type), ...nameError(input.name), ...seedError(input.seed)];
  if (errors.length > 0) throw validationError(errors, 'The account request is not valid.');
  return {
    type: input.type as NewAccount['type'],
    name: (input.name as string).trim(),
    ...(input.seed === undefined ? {} : { seed: input.seed as number }),
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
    client_id: account.clientId,
    key: client?.key ?? null,
    scopes: client?.scopes ?? [],
    plan: client?.plan ?? null,
    created_at: account.createdAt,
  };
}
