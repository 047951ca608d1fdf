/** `server.auth` and `server.trusted_proxies`: who may read the operations endpoints and who may act. */
import * as z from 'zod';
import { cidrSchema } from './network-schema.js';
import { secret } from './secret.js';

export const ROLES = ['viewer', 'operator'] as const;

const roleSchema = z
  .enum(ROLES, { error: 'expected viewer or operator' })
  .describe(
    'viewer: /metrics, /status, the readiness details and the GET control routes; operator: every action too',
  );

const userSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/, {
        error: 'expected a user name of letters, digits, ".", "_", "@" or "-" (at most 64)',
      })
      .describe('Who this is, as written in the log, the command record and the run history')
      .meta({ examples: ['alice'] }),
    role: roleSchema,
    token: secret('a bearer token')
      .optional()
      .describe('Bearer token of this user, as ${ENV} or token_file; never printed')
      .meta({ examples: ['${ALICE_TOKEN}'] }),
    password: secret('a password')
      .optional()
      .describe('Password for basic authentication as name, as ${ENV} or password_file; never printed')
      .meta({ examples: ['${ALICE_PASSWORD}'] }),
  })
  .refine((user) => (user.token === undefined) !== (user.password === undefined), {
    error: 'expected token or password (one of them)',
  })
  .describe('A named user of the operations endpoints and the control API');

type AuthBlock = {
  token?: string | undefined;
  username?: string | undefined;
  users: readonly { name: string; token?: string | undefined }[];
};

/** Two users with one token could not be told apart in the log; the message names users, never the token. */
function checkDistinctUsers(auth: AuthBlock, ctx: z.RefinementCtx): void {
  const names = new Map<string, string>();
  if (auth.token !== undefined) names.set('token', 'the single token (recorded as "token")');
  if (auth.username !== undefined) names.set(auth.username, 'username');
  const tokens = new Map<string, string>();
  if (auth.token !== undefined) tokens.set(auth.token, 'token');
  auth.users.forEach((user, index) => {
    const earlier = names.get(user.name);
    if (earlier !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['users', index, 'name'],
        message: `"${user.name}" is already used by ${earlier}: give each user its own name`,
      });
    }
    names.set(user.name, `users[${index}]`);
    if (user.token === undefined) return;
    const same = tokens.get(user.token);
    if (same !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['users', index, 'token'],
        message: `is the same as the token of ${same}: give each user its own token`,
      });
    }
    tokens.set(user.token, `users[${index}]`);
  });
}

export const opsAuthSchema = z
  .strictObject({
    token: secret('a bearer token')
      .optional()
      .describe(
        'A single bearer token (Authorization: Bearer ...), as ${ENV} or token_file; recorded as "token"',
      )
      .meta({ examples: ['${OPS_TOKEN}'] }),
    username: z
      .string()
      .min(1)
      .optional()
      .describe('A single user name for basic authentication')
      .meta({ examples: ['monitoring'] }),
    password: secret('a password')
      .optional()
      .describe('Password of username, as ${ENV} or password_file; never printed')
      .meta({ examples: ['${OPS_PASSWORD}'] }),
    role: roleSchema
      .default('viewer')
      .describe(
        'Role of the single token and username above: viewer unless set to operator (an operator may pause jobs, reset cursors and discard dead letters)',
      ),
    users: z.array(userSchema).default([]).describe('Named users, each with its role and its own secret'),
  })
  .refine((auth) => auth.token !== undefined || auth.username !== undefined || auth.users.length > 0, {
    error: 'expected users, a token, or username and password',
  })
  .refine((auth) => (auth.username === undefined) === (auth.password === undefined), {
    error: 'expected username and password together',
  })
  .superRefine(checkDistinctUsers)
  .describe(
    'Credentials for /metrics, /status, the readiness details and the control API; /healthz, the bare /readyz and the webhook path stay open',
  );

export const trustedProxiesSchema = z
  .array(cidrSchema)
  .default([])
  .describe(
    'Address ranges of reverse proxies whose X-Forwarded-For / X-Real-IP is believed: the forwarded address is then logged and throttled; from any other sender it is ignored',
  )
  .meta({ examples: [['127.0.0.1/32']] });
