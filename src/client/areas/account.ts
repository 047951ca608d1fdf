/** GET /me: account context, scopes, plan, features and rate limit. */
import type { Me } from '../../contract/index.js';
import { requestResource, type ClientContext } from '../context.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import { callOf } from './common.js';

export function createAccountApi(ctx: ClientContext, onAccount: (me: Me) => void) {
  return {
    /** Also sizes the client's rate limiter from rate_limit.per_minute. */
    async me(options?: CallOptions): Promise<Me> {
      const me = await requestResource(ctx, { method: 'GET', route: '/me', ...callOf(options) }, parsers.me);
      onAccount(me);
      return me;
    },
  };
}

export type AccountApi = ReturnType<typeof createAccountApi>;
