import type { Feature } from '../../embedded';
import { bulkRoutes } from './bulk';

/** Permit's bulk facts endpoints (tuples, role assignments, resource instances), all or nothing per request. */
export function bulkFeature(): Feature {
  return {
    name: 'bulk-facts',
    routes: () => ({ facts }) => bulkRoutes(facts),
  };
}
