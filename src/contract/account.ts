/** Account context (GET /me, part 2.3) and the token response (part 4.1). */
import * as z from 'zod';
import { ENVIRONMENTS, FEATURES, TOKEN_TYPES } from './enums.js';
import { Id, NonNegativeInt } from './formats.js';
import type { SchemaKit } from './kit.js';

export function defineAccount(k: SchemaKit) {
  const Me = k.object({
    /** `type` is an open set: only `supplier` is shown (buyer chosen in gaps.ts). */
    account: k.object({
      id: Id,
      name: z.string(),
      type: z.string(),
      parent_id: z.string().nullable().optional(),
    }),
    client: k.object({
      id: Id,
      name: z.string(),
      environment: k.enumOf(ENVIRONMENTS),
      key_prefix: z.string(),
      ip_allowlist: z.array(z.string()),
      branch_ids: z.array(z.string()).nullable(),
    }),
    scopes: z.array(z.string()),
    /** Plan names are not snake_case enums; values seen are PLANS_SEEN. */
    plan: z.string(),
    features: z.array(k.enumOf(FEATURES)),
    rate_limit: k.object({ per_minute: z.int().positive(), per_day: z.int().positive().nullable() }),
    api_version: z.string(),
  });
  const TokenResponse = k.object({
    access_token: z.string().min(1),
    token_type: k.enumOf(TOKEN_TYPES),
    expires_in: NonNegativeInt,
    scope: z.string(),
  });
  return { Me, TokenResponse };
}
