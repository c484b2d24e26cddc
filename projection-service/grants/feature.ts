import { checkRoutes } from '../../command-service/routes/checks';
import type { Feature } from '../../embedded';
import { GrantCollections } from './collections';
import { grantsProjection } from './projection';
import { GrantQueries } from './query/grant-queries';
import { GrantStats } from './stats';

/**
 * Derived grants and permission checks: the projection that materialises every
 * role a user holds on every instance, and the PDP endpoints that read it
 * (`/allowed`, `/allowed/bulk`, `/user-permissions`, `/authorized_users`).
 */
export function grantsFeature(options: { stats?: GrantStats } = {}): Feature {
  return {
    name: 'derived-grants',
    projections: (rm) => [grantsProjection(rm, { stats: options.stats })],
    routes: (context) => checkRoutes(new GrantQueries(context.services.readModels, new GrantCollections(context.documentStore))),
  };
}
