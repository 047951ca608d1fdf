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
      compiled = compileRoutes([...platformRoutes, ...current]);
      compiledDomainCount = current.length;
    }
    return compiled;
  };
}
