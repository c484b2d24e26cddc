import { checkRoutes } from '../../command-service/routes/checks';
import type { Feature } from '../feature';
import { readStoresOf } from '../../shared/read-stores/port';
import { GrantQueries } from '../../command-service/grant-queries/grant-queries';
import type { GrantStats } from '../../projection-service/grants/stats';
import { featureRegistry } from '../feature-registry';

/**
 * Derived grants and permission checks: the projection that materialises every
 * role a user holds on every instance, and the PDP endpoints that read it
 * (`/allowed`, `/allowed/bulk`, `/user-permissions`, `/authorized_users`).
 */
export function grantsFeature(options: { stats?: GrantStats } = {}): Feature {
  return {
    name: 'derived-grants',
    projections: (rm) => featureRegistry['derived-grants'].projections(rm, options.stats),
    projectionsNeedThisThread: options.stats !== undefined,
    routes: (context) =>
      checkRoutes(
        GrantQueries.overStored(context.services.readModels, readStoresOf(context.documentStore).grants, () =>
          context.services.clock.now(),
        ),
      ),
  };
}
