import type { Feature } from '../feature';
import { bulkRoutes } from '../../command-service/routes/bulk';

/** Permit's bulk facts endpoints (tuples, role assignments, resource instances), all or nothing per request. */
export function bulkFeature(): Feature {
  return {
    name: 'bulk-facts',
    routes:
      () =>
      ({ facts }) =>
        bulkRoutes(facts),
  };
}
