import type { GrantQueries } from '../../../projection-service/grants/query/grant-queries';
import type { RouteModule } from '../../app';
import { allowedRoutes } from './allowed';
import { permissionRoutes } from './permissions';

/** The PDP endpoints at the root of the base URL (Permit's SDK points `pdp` there). */
export function checkRoutes(queries: GrantQueries): RouteModule {
  return ({ root }) => {
    allowedRoutes(root, queries);
    permissionRoutes(root, queries);
  };
}
