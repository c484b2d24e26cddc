import type { GrantQueries } from '../../grant-queries/grant-queries';
import type { RouteModule } from '../../app';
import { changePosition } from '../../http/read-model-groups';
import { allowedRoutes } from './allowed';
import { allowedUrlRoutes } from './allowed-url';
import { permissionRoutes } from './permissions';
import { tenantRoutes } from './tenants';
import { authzenRoutes } from './authzen';

/** The PDP endpoints at the root of the base URL (Permit's SDK points `pdp` there). */
export function checkRoutes(queries: GrantQueries): RouteModule {
  return ({ root }) => {
    const { config, freshness } = root.services;
    const reads = config.READ_CACHE_ENTRIES > 0 ? queries.withRolesCachedPer(changePosition(freshness, 'schema')) : queries;
    allowedRoutes(root, reads);
    allowedUrlRoutes(root, reads);
    permissionRoutes(root, reads);
    tenantRoutes(root, reads);
    authzenRoutes(root, reads);
  };
}
