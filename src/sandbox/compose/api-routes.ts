/** The /v2 route table: the platform's endpoints first, then the domain's. */
import type { RouteDef } from '../http/types.js';
import { compileRoutes } from '../http/router.js';
import type { CompiledRoute } from '../http/router.js';
import type { PlatformContext } from '../platform/context.js';
import { meRoute } from '../platform/account.js';
import { auditRoutes } from '../platform/audit.js';
import { eventFeedRoute } from '../platform/events.js';
import { exportRoutes } from '../platform/exports.js';
import { fileRoutes } from '../platform/files.js';
import type { WebhookDispatcher } from '../webhooks/dispatcher.js';
import { webhookRoutes } from '../webhooks/routes.js';

/**
 * A domain route that serves a created account from the account's own world: the same route of that world's
 * domain (every world has the same routes, in the same order), called as the account's inside id.
 */
function inCallersWorld(ctx: PlatformContext, route: RouteDef, index: number): RouteDef {
  return {
    ...route,
    handle: (req) => {
      const world = ctx.worldOf(req.caller.accountId);
      if (world === null) return route.handle(req);
      const own = world.domain.routes[index];
      if (own?.method !== route.method || own.path !== route.path)
        throw new Error(`the world of ${req.caller.accountId} has no route ${route.method} ${route.path}`);
      return own.handle({ ...req, caller: { ...req.caller, accountId: world.insideId } });
    },
  };
}

/** The compiled table, compiled again when the number of domain routes changes. */
export function apiRouteTable(
  ctx: PlatformContext,
  dispatcher: WebhookDispatcher,
): () => readonly CompiledRoute<RouteDef>[] {
  const platformRoutes: RouteDef[] = [
    meRoute(ctx),
    ...fileRoutes(ctx),
    ...webhookRoutes(ctx, dispatcher),
    ...auditRoutes(ctx),
    ...exportRoutes(ctx),
    eventFeedRoute(ctx),
  ];
  let compiled: CompiledRoute<RouteDef>[] = [];
  let compiledDomainCount = -1;
  return () => {
    const current = ctx.domain().routes;
    if (current.length !== compiledDomainCount) {
      const domainRoutes = current.map((route, index) => inCallersWorld(ctx, route, index));
      compiled = compileRoutes([...platformRoutes, ...domainRoutes]);
      compiledDomainCount = current.length;
    }
    return compiled;
  };
}
